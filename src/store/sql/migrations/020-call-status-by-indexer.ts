import type { Migration } from './migration.js';

/**
 * The status filter and the status sort without a scan (docs/query-performance.md "The status filter
 * and sort off the commit path"): `call_status (project_id, status, started_at, id)`, written by the
 * call indexer with the substring index, `call_values` and `call_latency` (call-indexes/text-index.ts), under
 * the same per-project mark, never by the call writers. A started call at or below the mark has an
 * entry keyed by its derived status (calls-query/status.ts) and start: "status == x, newest first" walks
 * the primary key, a sort by status then `id` walks `call_status_by_id`. Stale entries of calls whose
 * status or start changed stay; queries skip them by comparing with the call and read the calls
 * after the mark from `calls_by_change` (calls-query/select.ts `statusIds`).
 *
 * The entries of the calls already at or below each mark are written in the background by the
 * indexer's fill (call-indexes/entry-fills.ts, recorded by migration 027); until a project's is done the
 * status filter and sort keep their plain plans. (Released with an INSERT … SELECT of those entries here, as
 * 019's; a store migrated so has its entries, and 027 records its fills as done.)
 */
export const migration: Migration = {
  id: 20,
  name: 'call-status-by-indexer',
  sqlite: String.raw`
  CREATE TABLE call_status (
    project_id TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, status, started_at, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_status_by_id ON call_status (project_id, status, id);
  `,
  postgres: String.raw`
CREATE TABLE call_status (
  project_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  started_at bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, status, started_at, id)
);
CREATE INDEX call_status_by_id ON call_status (project_id, status, id);
`,
};
