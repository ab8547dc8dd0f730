import type { Migration } from './migration.js';

/**
 * The latency sort's index leaves the commit path (docs/query-performance.md "Latency sort"):
 * `calls_by_latency (project_id, latency_ms, id)` cost the SQLite writer ≈ 7 µs and 2.4 KB of WAL
 * per call (random keys in small commits dirty about one B-tree page per entry). In its place
 * `call_latency (project_id, latency_ms, id)`, written by the call indexer with the substring index
 * and `call_values` (call-indexes/text-index.ts), under the same per-project mark: a call at or below the
 * mark has an entry keyed by its latency (NULL latencies under NULL_LATENCY_KEY, after every real
 * one). Stale entries of calls whose latency changed stay; queries skip them by comparing with
 * `calls.latency_ms` and read the calls after the mark from `calls_by_change` (calls-query/select.ts).
 *
 * The entries of the calls already at or below each mark are written in the background by the
 * indexer's fill (call-indexes/entry-fills.ts, recorded by migration 027); until a project's is done the
 * latency sort keeps its plain plan. (Released with an INSERT … SELECT of those entries here, which
 * held the upgrade for minutes at millions of calls; a store migrated so has its entries, and 027
 * records its fills as done.)
 */
export const migration: Migration = {
  id: 19,
  name: 'call-latency-by-indexer',
  sqlite: String.raw`
  CREATE TABLE call_latency (
    project_id TEXT NOT NULL,
    latency_ms INTEGER NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, latency_ms, id)
  ) WITHOUT ROWID;
  DROP INDEX IF EXISTS calls_by_latency;
  `,
  postgres: String.raw`
CREATE TABLE call_latency (
  project_id text COLLATE "C" NOT NULL,
  latency_ms bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, latency_ms, id)
);
DROP INDEX IF EXISTS calls_by_latency;
`,
};
