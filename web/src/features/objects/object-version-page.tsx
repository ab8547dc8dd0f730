import { lazy, Suspense } from 'react';
import { getRouteApi, Link, useParams } from '@tanstack/react-router';
import { useFileText, useObject, useObjectVersions, type ObjVersion } from '../../api/objects.js';
import { CopyLinkButton } from '../../ui/copy-link.js';
import { JsonTree } from '../../ui/json-tree.js';
import { PageHeading } from '../../ui/page-heading.js';
import { rowsTable } from '../../lib/datasets.js';
import { formatTime, objectVersionRef } from '../../lib/format.js';
import { DatasetEditor } from './dataset-editor.js';
import { ObjectLabels } from './object-labels.js';
import { PromptMessages } from './prompt-messages.js';
import { VersionDiff } from './version-diff.js';
import { CallCount, ObjectAttributes, ObjectMethods, ObjectUsage, OpCallsLink } from './object-usage.js';
import { useOpCallCounts } from '../../api/object-usage.js';
import { KIND_LABEL, objectKind } from '../../lib/object-kinds.js';

const objectRoute = getRouteApi('/$entity/$project/weave/objects/$name/versions/$digest');
const opRoute = getRouteApi('/$entity/$project/weave/ops/$name/versions/$digest');

const CodeView = lazy(() => import('../../ui/code-view.js'));

export function ObjectVersionPage({ kind }: { kind: 'op' | 'object' }) {
  const { entity, project, name, digest } = useParams({ strict: false }) as Record<string, string>;
  const { diff } = (kind === 'op' ? opRoute : objectRoute).useSearch();
  const projectId = `${entity}/${project}`;
  const obj = useObject(projectId, name, digest);
  const val = obj.data?.val as { files?: Record<string, string> } | undefined;
  const codeDigest =
    kind === 'op' && val?.files && typeof val.files['obj.py'] === 'string' ? val.files['obj.py'] : null;
  const code = useFileText(projectId, codeDigest);
  const table = rowsTable(obj.data?.val);
  return (
    <main className="page narrow-wide object-page">
      <div className="page-head">
        <Link to="/$entity/$project/weave/objects" params={{ entity, project }} className="back-link">
          ← Objects
        </Link>
        <PageHeading>
          {obj.data ? KIND_LABEL[objectKind(obj.data)] : kind === 'op' ? 'Op' : 'Object'}{' '}
          <span className="mono">{name}</span>
        </PageHeading>
        <span className="spacer" />
        <CopyLinkButton />
      </div>
      {obj.isPending && <p className="muted">Loading…</p>}
      {obj.isError && (
        <p role="alert">
          Could not load {name}: {obj.error.message}
        </p>
      )}
      {obj.data && (
        <>
          <dl className="facts">
            <dt>Version</dt>
            <dd>
              v{obj.data.version_index}
              {obj.data.is_latest ? ' (latest)' : ''}
            </dd>
            <dt>Digest</dt>
            <dd className="mono small">{obj.data.digest}</dd>
            <dt>Class</dt>
            <dd>{obj.data.leaf_object_class ?? obj.data.base_object_class ?? '—'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(obj.data.created_at)}</dd>
          </dl>
          <ObjectLabels projectId={projectId} obj={obj.data} />
          {kind === 'op' && <OpCalls entity={entity} project={project} obj={obj.data} />}
          <Versions
            kind={kind}
            projectId={projectId}
            entity={entity}
            project={project}
            current={obj.data}
            diff={diff}
          />
          {diff && <VersionDiff projectId={projectId} obj={obj.data} base={diff} />}
          {obj.data.leaf_object_class === 'MessagesPrompt' && (
            <PromptMessages entity={entity} project={project} name={name} digest={obj.data.digest} val={obj.data.val} />
          )}
          {kind === 'object' && (
            <>
              <ObjectAttributes name={name} val={obj.data.val} />
              <ObjectMethods entity={entity} project={project} name={name} val={obj.data.val} />
              <ObjectUsage
                entity={entity}
                project={project}
                kind={objectKind(obj.data)}
                objectRef={objectVersionRef(projectId, 'object', name, obj.data.digest)}
              />
            </>
          )}
          {table && (
            <DatasetEditor key={obj.data.digest} entity={entity} project={project} obj={obj.data} table={table} />
          )}
          {code.data && (
            <section>
              <h2>Source</h2>
              <Suspense fallback={<pre className="code-fallback">{code.data}</pre>}>
                <CodeView text={code.data} language="python" label={`Source of ${name}`} />
              </Suspense>
            </section>
          )}
          <section>
            <h2>Value</h2>
            <JsonTree value={obj.data.val} projectId={projectId} openDepth={3} label="Value" />
          </section>
        </>
      )}
    </main>
  );
}

function Versions({
  kind,
  projectId,
  entity,
  project,
  current,
  diff,
}: {
  kind: 'op' | 'object';
  projectId: string;
  entity: string;
  project: string;
  current: ObjVersion;
  diff: string | undefined;
}) {
  const versions = useObjectVersions(projectId, current.object_id);
  const counts = useOpCallCounts(
    projectId,
    kind === 'op' ? (versions.data ?? []).map((v) => objectVersionRef(projectId, 'op', v.object_id, v.digest)) : [],
  );
  const to =
    kind === 'op'
      ? ('/$entity/$project/weave/ops/$name/versions/$digest' as const)
      : ('/$entity/$project/weave/objects/$name/versions/$digest' as const);
  if (versions.isPending) return <p className="muted">Loading versions…</p>;
  if (versions.isError) return <p role="alert">Could not load versions: {versions.error.message}</p>;
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      <table className="simple-table" aria-label="Versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Aliases</th>
            <th scope="col">Tags</th>
            {kind === 'op' && (
              <th scope="col" className="num">
                Calls
              </th>
            )}
            <th scope="col">Compare</th>
          </tr>
        </thead>
        <tbody>
          {versions.data.map((v, i) => {
            const isCurrent = v.digest === current.digest;
            return (
              <tr key={v.digest} className={isCurrent ? 'selected' : undefined}>
                <th scope="row">
                  {isCurrent ? (
                    <span aria-current="page">v{v.version_index} (shown)</span>
                  ) : (
                    <Link to={to} params={{ entity, project, name: v.object_id, digest: v.digest }} search={{}}>
                      v{v.version_index}
                    </Link>
                  )}
                </th>
                <td className="small">{formatTime(v.created_at, false)}</td>
                <td>{(v.aliases ?? []).join(', ')}</td>
                <td>{(v.tags ?? []).join(', ')}</td>
                {kind === 'op' && (
                  <td className="num">
                    <OpCallsLink
                      entity={entity}
                      project={project}
                      op={objectVersionRef(projectId, 'op', v.object_id, v.digest)}
                      count={counts[i]}
                      label={`calls of v${v.version_index}`}
                    />
                  </td>
                )}
                <td>
                  {isCurrent ? (
                    ''
                  ) : v.digest === diff ? (
                    <Link
                      to={to}
                      params={{ entity, project, name: current.object_id, digest: current.digest }}
                      search={{}}
                    >
                      Hide changes
                    </Link>
                  ) : (
                    <Link
                      to={to}
                      params={{ entity, project, name: current.object_id, digest: current.digest }}
                      search={{ diff: v.digest }}
                    >
                      Changes from v{v.version_index}
                    </Link>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** An op's calls: of the version shown and of every version, each a link to them in Traces. */
function OpCalls({ entity, project, obj }: { entity: string; project: string; obj: ObjVersion }) {
  const projectId = `${entity}/${project}`;
  const thisVersion = objectVersionRef(projectId, 'op', obj.object_id, obj.digest);
  const [mine, all] = useOpCallCounts(projectId, [thisVersion, obj.object_id]);
  return (
    <section aria-labelledby="op-calls-h">
      <h2 id="op-calls-h">Calls</h2>
      <dl className="facts">
        <dt>This version</dt>
        <dd>
          <Link to="/$entity/$project/weave" params={{ entity, project }} search={{ all: true, op: thisVersion }}>
            <CallCount result={mine?.data} pending={mine?.isPending ?? true} /> calls
          </Link>
        </dd>
        <dt>Every version</dt>
        <dd>
          <Link to="/$entity/$project/weave" params={{ entity, project }} search={{ all: true, op: obj.object_id }}>
            <CallCount result={all?.data} pending={all?.isPending ?? true} /> calls
          </Link>
        </dd>
      </dl>
    </section>
  );
}
