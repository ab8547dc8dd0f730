import type { Migration } from './migration.js';

/**
 * The display-name sort without a scan (docs/query-performance.md "The display-name sort off the
 * commit path"): `call_display (project_id, kind, display_key, id)`, written by the call indexer with
 * the substring index, `call_values`, `call_latency` and `call_status` (call-indexes/text-index.ts), under the
 * same per-project mark, never by the call writers. A call at or below the mark has an entry keyed by
 * its display name (calls-query/names.ts: whole names, the first characters of long ones, NULL names
 * apart). `call_display_by_id_desc` serves the walks whose `id` tie-break runs against the name's
 * direction (an ascending sort with the default `id DESC`). Stale entries of renamed calls stay;
 * queries skip them by comparing with the call and read the calls after the mark from
 * `calls_by_change` (calls-query/select.ts `displayNameIds`).
 *
 * The entries of the calls already at or below each mark are written in the background by the
 * indexer's fill (call-indexes/entry-fills.ts, recorded by migration 027); until a project's is done the
 * display-name sort keeps its plain plan. (Released with an INSERT … SELECT of those entries here, as
 * 019's; a store migrated so has its entries, and 027 records its fills as done.)
 */
export const migration: Migration = {
  id: 21,
  name: 'call-display-by-indexer',
  sqlite: String.raw`
  CREATE TABLE call_display (
    project_id TEXT NOT NULL,
    kind INTEGER NOT NULL,
    display_key TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, kind, display_key, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_display_by_id_desc ON call_display (project_id, kind, display_key, id DESC);
  `,
  postgres: String.raw`
CREATE TABLE call_display (
  project_id text COLLATE "C" NOT NULL,
  kind smallint NOT NULL,
  display_key text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, kind, display_key, id)
);
CREATE INDEX call_display_by_id_desc ON call_display (project_id, kind, display_key, id DESC);
`,
};
