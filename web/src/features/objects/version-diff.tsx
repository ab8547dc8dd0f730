import { useMemo } from 'react';
import { useObject, type ObjVersion } from '../../api/objects.js';
import { diffValues } from '../../lib/diff.js';
import { preview } from '../../lib/format.js';

const MAX_SHOWN = 500;

/** What changed from version `base` to the shown version, path by path. */
export function VersionDiff({ projectId, obj, base }: { projectId: string; obj: ObjVersion; base: string }) {
  const other = useObject(projectId, obj.object_id, base);
  const entries = useMemo(() => (other.data ? diffValues(other.data.val, obj.val) : []), [other.data, obj.val]);
  if (other.isPending) return <p className="muted">Loading the other version…</p>;
  if (other.isError)
    return (
      <p role="alert">
        Could not load version {base}: {other.error.message}
      </p>
    );
  const from = `v${other.data.version_index}`;
  const to = `v${obj.version_index}`;
  return (
    <section aria-labelledby="diff-h">
      <h2 id="diff-h">
        Changes from {from} to {to}
      </h2>
      {entries.length === 0 ? (
        <p>The two versions hold the same value.</p>
      ) : (
        <table className="simple-table diff-table" aria-label={`Changes from ${from} to ${to}`}>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Change</th>
              <th scope="col">{from}</th>
              <th scope="col">{to}</th>
            </tr>
          </thead>
          <tbody>
            {entries.slice(0, MAX_SHOWN).map((e) => (
              <tr key={e.path} className={`diff-${e.kind}`}>
                <th scope="row" className="mono small">
                  {e.path}
                </th>
                <td>{e.kind}</td>
                <td className="mono small diff-left">{e.kind === 'added' ? '' : preview(e.left, 200)}</td>
                <td className="mono small diff-right">{e.kind === 'removed' ? '' : preview(e.right, 200)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {entries.length > MAX_SHOWN && <p className="muted">{entries.length - MAX_SHOWN} more changes not shown.</p>}
    </section>
  );
}
