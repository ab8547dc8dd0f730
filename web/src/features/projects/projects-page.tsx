import { Link } from '@tanstack/react-router';
import { useProjects } from '../../api/projects.js';
import { PageHeading } from '../../components/page-heading.js';
import { formatInt, formatTime } from '../../lib/format.js';

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
        <table className="simple-table">
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
                <td className="num">{p.call_count == null ? '—' : formatInt(p.call_count)}</td>
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
