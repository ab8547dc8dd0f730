import { getRouteApi, Link } from '@tanstack/react-router';
import { useObjectsList } from '../../api/objects.js';
import { useOpCallCounts } from '../../api/object-usage.js';
import { KIND_LABEL, KIND_PLURAL, OBJECT_KINDS, isObjectKind, objectKind } from '../../lib/object-kinds.js';
import { OpCallsLink } from './object-usage.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatTime, plural } from '../../lib/format.js';

const objectsRoute = getRouteApi('/$entity/$project/weave/objects');

/** Every object and op of the project (latest version), with its version count, aliases and tags. */
export function ObjectsPage() {
  const { entity, project } = objectsRoute.useParams();
  const { kind } = objectsRoute.useSearch();
  const navigate = objectsRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const list = useObjectsList(projectId);
  const shown = (list.data ?? []).filter((o) => !kind || objectKind(o) === kind);
  const ops = shown.filter((o) => o.kind === 'op').map((o) => o.object_id);
  const counts = useOpCallCounts(projectId, ops);
  const opCalls = new Map(ops.map((name, i) => [name, counts[i]]));
  return (
    <main className="page">
      <div className="page-head">
        <PageHeading>Objects</PageHeading>
        {list.data && <span className="muted">{plural(shown.length, 'object')}</span>}
        <label className="field">
          Kind{' '}
          <select
            value={kind ?? ''}
            onChange={(e) => void navigate({ search: isObjectKind(e.target.value) ? { kind: e.target.value } : {} })}
          >
            <option value="">All</option>
            {OBJECT_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_PLURAL[k]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.isPending && <p className="muted">Loading objects…</p>}
      {list.isError && <p role="alert">Could not load objects: {list.error.message}</p>}
      {list.data && shown.length === 0 && <p>No objects here yet. Publish one with a client.</p>}
      {shown.length > 0 && (
        <div className="table-scroll">
          <table className="simple-table" aria-label="Objects">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Class</th>
                <th scope="col" className="num">
                  Versions
                </th>
                <th scope="col" className="num">
                  Calls
                </th>
                <th scope="col">Aliases</th>
                <th scope="col">Tags</th>
                <th scope="col">Last version (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((o) => {
                const k = objectKind(o);
                const calls = opCalls.get(o.object_id);
                const params = { entity, project, name: o.object_id, digest: o.digest };
                return (
                  <tr key={`${o.kind}:${o.object_id}`}>
                    <th scope="row">
                      {k === 'op' ? (
                        <Link to="/$entity/$project/weave/ops/$name/versions/$digest" params={params} search={{}}>
                          {o.object_id}
                        </Link>
                      ) : (
                        <Link to="/$entity/$project/weave/objects/$name/versions/$digest" params={params} search={{}}>
                          {o.object_id}
                        </Link>
                      )}
                    </th>
                    <td>{KIND_LABEL[k]}</td>
                    <td>{o.leaf_object_class ?? o.base_object_class ?? '—'}</td>
                    <td className="num">{o.version_index + 1}</td>
                    <td className="num">
                      {k === 'op' ? (
                        <OpCallsLink
                          entity={entity}
                          project={project}
                          op={o.object_id}
                          count={calls}
                          label={`calls of ${o.object_id}`}
                        />
                      ) : (
                        ''
                      )}
                    </td>
                    <td>{(o.aliases ?? []).join(', ')}</td>
                    <td>{(o.tags ?? []).join(', ')}</td>
                    <td className="small">{formatTime(o.created_at, false)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
