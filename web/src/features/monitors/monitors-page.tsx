import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useCanWrite } from '../../api/auth.js';
import { useMonitors, useSetMonitorActive } from '../../api/monitors.js';
import { samplingText, type MonitorView } from '../../lib/monitors.js';
import { PageHeading } from '../../ui/page-heading.js';
import { MonitorScores } from './monitor-scores.js';

const monitorsRoute = getRouteApi('/$entity/$project/weave/monitors');

/**
 * The project's online monitors (docs/monitors.md): each `Monitor` object's state, filter,
 * sampling and scorers; activate or deactivate one; the selected one's scored calls.
 */
export function MonitorsPage() {
  const { entity, project } = monitorsRoute.useParams();
  const { monitor: picked } = monitorsRoute.useSearch();
  const projectId = `${entity}/${project}`;
  const monitors = useMonitors(projectId);
  const canWrite = useCanWrite(entity);
  const selected = picked ?? monitors.data?.[0]?.name;
  return (
    <main className="page monitors-page">
      <div className="page-head">
        <PageHeading>Monitors</PageHeading>
      </div>
      <p className="muted small">
        A monitor scores calls as they finish, in the background, with its scorers; each score is feedback on the call.
        Publish one from Python with <code>weave.Monitor(name=…, op_names=[…], scorers=[…]).activate()</code>.
        {!canWrite && ` You are a viewer of ${entity}: you can read its monitors and their scores, not change them.`}
      </p>
      {monitors.isPending && <p className="muted">Loading monitors…</p>}
      {monitors.isError && <p role="alert">Could not load monitors: {monitors.error.message}</p>}
      {monitors.data?.length === 0 && <p>No monitors in this project yet.</p>}
      {monitors.data && monitors.data.length > 0 && (
        <MonitorsTable
          entity={entity}
          project={project}
          monitors={monitors.data}
          selected={selected}
          canWrite={canWrite}
        />
      )}
      {selected && monitors.data?.some((m) => m.name === selected) && (
        <MonitorScores entity={entity} project={project} name={selected} />
      )}
    </main>
  );
}

function MonitorsTable({
  entity,
  project,
  monitors,
  selected,
  canWrite,
}: {
  entity: string;
  project: string;
  monitors: MonitorView[];
  selected: string | undefined;
  canWrite: boolean;
}) {
  const navigate = useNavigate();
  const setActive = useSetMonitorActive(`${entity}/${project}`);
  return (
    <>
      <table className="simple-table monitors-table" aria-label="Monitors">
        <thead>
          <tr>
            <th scope="col">Monitor</th>
            <th scope="col">State</th>
            <th scope="col">Ops</th>
            <th scope="col">Query</th>
            <th scope="col">Sampling</th>
            <th scope="col">Scorers</th>
            <th scope="col">Version</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {monitors.map((m) => (
            <tr key={m.name} className={m.name === selected ? 'selected' : undefined}>
              <th scope="row">
                <button
                  type="button"
                  className="link-button"
                  aria-current={m.name === selected ? 'true' : undefined}
                  onClick={() =>
                    void navigate({
                      to: '/$entity/$project/weave/monitors',
                      params: { entity, project },
                      search: { monitor: m.name },
                    })
                  }
                >
                  {m.name}
                </button>
              </th>
              <td className={m.active ? 'status-success' : 'muted'}>{m.active ? '● Active' : '○ Inactive'}</td>
              <td className="mono small">{m.ops.length ? m.ops.join(', ') : 'every op'}</td>
              <td className="mono small">{m.query ?? '—'}</td>
              <td>{samplingText(m.samplingRate)}</td>
              <td>{m.scorers.join(', ') || '—'}</td>
              <td>
                <Link
                  to="/$entity/$project/weave/objects/$name/versions/$digest"
                  params={{ entity, project, name: m.name, digest: m.digest }}
                  search={{}}
                >
                  v{m.versionIndex}
                </Link>
              </td>
              {canWrite && (
                <td>
                  <button
                    type="button"
                    aria-label={`${m.active ? 'Deactivate' : 'Activate'} ${m.name}`}
                    disabled={setActive.isPending}
                    onClick={() => setActive.mutate({ monitor: m, active: !m.active })}
                  >
                    {m.active ? 'Deactivate' : 'Activate'}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {setActive.isError && (
        <p role="alert" className="error-text">
          Could not change the monitor: {setActive.error.message}
        </p>
      )}
    </>
  );
}
