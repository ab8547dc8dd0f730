import { Link } from '@tanstack/react-router';
import { PageHeading } from '../../ui/page-heading.js';

export function NotFound() {
  return (
    <main className="page narrow">
      <PageHeading>Page not found</PageHeading>
      <p>
        <Link to="/">Back to projects</Link>
      </p>
    </main>
  );
}
