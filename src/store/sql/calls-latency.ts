/**
 * `summary.weave.latency_ms` (docs/spec/calls.md §2.6): floor((ended - started) / 1 ms) on
 * microsecond integers; NULL while either is missing (a running call, or an end before its start).
 * The call writers store it in `calls.latency_ms` (migration 016) with this expression over the
 * values the row ends with, and the query compiler computes it the same way for projects whose
 * backfill has not reached them yet (calls-expr.ts).
 */
export function latencyMsSql(endedAt: string, startedAt: string): string {
  const span = `(${endedAt} - ${startedAt})`;
  return `((${span} - (((${span} % 1000) + 1000) % 1000)) / 1000)`;
}
