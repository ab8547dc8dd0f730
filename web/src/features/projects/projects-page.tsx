import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { countText } from '../../api/calls.js';
import { useProjectCallCount, useProjects } from '../../api/projects.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatTime } from '../../lib/format.js';

/** True once the element has been on screen (and from then on). */
function useSeen(ref: RefObject<HTMLElement | null>): boolean {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (seen || !el) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setSeen(true);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, seen]);
  return seen;
}

/** The Calls cell: counted when the row comes into view, "10,000+" past the count limit. */
function CallCount({ projectId }: { projectId: string }) {
  const ref = useRef<HTMLTableCellElement>(null);
  const count = useProjectCallCount(projectId, useSeen(ref));
  let text = '…';
  if (count.isError) text = '—';
  else if (count.data) text = countText(count.data);
  return (
    <td ref={ref} className="num" aria-busy={count.isPending || undefined}>
      {text}
    </td>
  );
}

export function ProjectsPage() {
  const projects = useProjects();
  return (
    <main className="page">
      <PageHeading>Projects</PageHeading>
      {projects.isPending && <p className="muted">Loading projects…</p>}
      {projects.isError && <p role="alert">Could not load projects: {projects.error.message}</p>}
      {projects.data && projects.data.projects.length === 0 && (
        <p>No projects yet. Point a Weave client at this server and log a call: its project appears here.</p>
      )}
      {projects.data && projects.data.projects.length > 0 && (
        <table className="simple-table" aria-label="Projects">
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col" className="num">
                Calls
              </th>
              <th scope="col">Last call</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {projects.data.projects.map((p) => (
              <tr key={p.project_id}>
                <td>
                  <Link to="/$entity/$project/weave" params={{ entity: p.entity, project: p.name }} className="mono">
                    {p.project_id}
                  </Link>
                </td>
                <CallCount projectId={p.project_id} />
                <td>{formatTime(p.last_call_at)}</td>
                <td>{formatTime(p.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
