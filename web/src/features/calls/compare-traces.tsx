import { useMemo } from 'react';
import { useTracesCalls } from '../../api/calls.js';
import { callStatus, latencyMs, type Call } from '../../lib/call.js';
import { compareTraces, MAX_COMPARE_PATHS } from '../../lib/compare-calls.js';
import { formatInt, formatLatency, opDisplayName } from '../../lib/format.js';

/** The calls' traces side by side, op by op: call counts, errors and time, differences marked. */
export function CompareTraces({
  projectId,
  calls,
  base,
  labels,
}: {
  projectId: string;
  calls: Call[];
  base: number;
  labels: string[];
}) {
  const traceIds = calls.map((c) => c.trace_id);
  const qs = useTracesCalls(projectId, traceIds);
  const done = qs.every((q) => q.data);
  const rows = useMemo(
    () =>
      done
        ? compareTraces(
            qs.map((q) =>
              q.data!.map((c) => ({
                op: opDisplayName(c.op_name),
                error: callStatus(c) === 'error',
                latencyMs: latencyMs(c),
              })),
            ),
            base,
          )
        : [],
    // the query results change identity only when their data does
    [done, base, ...qs.map((q) => q.data)],
  );
  if (new Set(traceIds).size < traceIds.length) return null; // calls of one trace: nothing to compare
  return (
    <section aria-labelledby="compare-traces">
      <h2 id="compare-traces">
        Traces{' '}
        <span className="muted small">
          {done
            ? `${rows.filter((r) => r.differs.some(Boolean)).length} of ${rows.length} ops differ in calls or errors`
            : 'loading…'}
        </span>
      </h2>
      {qs.some((q) => q.isError) && <p role="alert">Could not load a trace.</p>}
      {done && (
        <div className="table-scroll">
          <table className="simple-table compare-table" aria-label="Traces compared">
            <thead>
              <tr>
                <th scope="col">Op</th>
                {calls.map((c, i) => (
                  <th scope="col" key={c.id}>
                    {labels[i]}
                    {i === base ? ' (baseline)' : ''} · {qs[i]!.data!.length} calls
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, MAX_COMPARE_PATHS).map((r) => (
                <tr key={r.op}>
                  <th scope="row" className="mono small">
                    {r.op}
                  </th>
                  {r.shares.map((s, i) => (
                    <td key={calls[i]!.id} className={r.differs[i] ? 'cell-diff' : undefined}>
                      {s.calls === 0
                        ? '(none)'
                        : `${formatInt(s.calls)} call${s.calls > 1 ? 's' : ''}${s.errors ? `, ${formatInt(s.errors)} failed` : ''} · ${formatLatency(s.latencyMs)}`}
                      {r.differs[i] && <span className="sr-only"> (differs from the baseline)</span>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
