import { lazy, Suspense } from 'react';
import { useParams } from '@tanstack/react-router';
import { useFileText, useObject } from '../../api/objects.js';
import { JsonTree } from '../../components/json-tree.js';
import { PageHeading } from '../../components/page-heading.js';
import { formatTime } from '../../lib/format.js';

const CodeView = lazy(() => import('../../components/code-view.js'));

export function ObjectVersionPage({ kind }: { kind: 'op' | 'object' }) {
  const { entity, project, name, digest } = useParams({ strict: false }) as Record<string, string>;
  const projectId = `${entity}/${project}`;
  const obj = useObject(projectId, name, digest);
  const val = obj.data?.val as { files?: Record<string, string> } | undefined;
  const codeDigest =
    kind === 'op' && val?.files && typeof val.files['obj.py'] === 'string' ? val.files['obj.py'] : null;
  const code = useFileText(projectId, codeDigest);
  return (
    <main className="page narrow-wide">
      <PageHeading>
        {kind === 'op' ? 'Op' : 'Object'} <span className="mono">{name}</span>
      </PageHeading>
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
            {obj.data.aliases && obj.data.aliases.length > 0 && (
              <>
                <dt>Aliases</dt>
                <dd>{obj.data.aliases.join(', ')}</dd>
              </>
            )}
            {obj.data.tags && obj.data.tags.length > 0 && (
              <>
                <dt>Tags</dt>
                <dd>{obj.data.tags.join(', ')}</dd>
              </>
            )}
          </dl>
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
