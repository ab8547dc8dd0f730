import { getRouteApi, Link } from '@tanstack/react-router';
import { useQueues } from '../../api/queues.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatTime } from '../../lib/format.js';
import { AnnotationSpecs } from './annotation-specs.js';

const queuesRoute = getRouteApi('/$entity/$project/weave/queues');

/** The project's annotation queues with their progress, and the annotation specs reviewers fill in. */
export function QueuesPage() {
  const { entity, project } = queuesRoute.useParams();
  const queues = useQueues(`${entity}/${project}`);
  return (
    <main className="page">
      <PageHeading>Annotation queues</PageHeading>
      <p className="muted small">Make a queue on the Traces page: filter the calls, then “Review these calls…”.</p>
      {queues.isPending && <p className="muted">Loading queues…</p>}
      {queues.isError && <p role="alert">Could not load queues: {queues.error.message}</p>}
      {queues.data && queues.data.length === 0 && <p>No queues yet.</p>}
      {queues.data && queues.data.length > 0 && (
        <table className="simple-table" aria-label="Annotation queues">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Progress</th>
              <th scope="col">Created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {queues.data.map((q) => (
              <tr key={q.id}>
                <th scope="row">
                  <Link
                    to="/$entity/$project/weave/queues/$queueId"
                    params={{ entity, project, queueId: q.id }}
                    search={{}}
                  >
                    {q.name}
                  </Link>
                </th>
                <td>
                  <span className="progress">
                    <progress value={q.done} max={Math.max(q.total, 1)} aria-label={`Progress of ${q.name}`} />
                    <span className="small">
                      {q.done} of {q.total} done
                    </span>
                  </span>
                </td>
                <td className="small">{formatTime(q.created_at, false)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <AnnotationSpecs entity={entity} project={project} />
    </main>
  );
}
