import type { Migration } from './migration.js';

/**
 * The token sort without a scan (docs/query-performance.md "The token sort off the commit path"):
 * `call_tokens (project_id, is_null, tokens, id)`, written by the call indexer with the substring
 * index, `call_values`, `call_latency` and `call_status` (call-indexes/text-index.ts), under the same
 * per-project mark, never by the call writers. A call at or below the mark has an entry keyed by its
 * `summary.weave.total_tokens` (calls-query/tokens.ts), or `is_null = 1` (and `tokens = 0`) when it has
 * none. Stale entries of calls whose total changed stay; queries skip them by comparing with the
 * call's total and read the calls after the mark from `calls_by_change` (calls-query/tokens-sort.ts).
 *
 * The entries of the calls already at or below each mark are written in the background by the
 * indexer's fill (call-indexes/entry-fills.ts, recorded by migration 027); until a project's is done the
 * token sort keeps its plain plan. (Released with an INSERT … SELECT of those entries here, as
 * 019's; a store migrated so has its entries, and 027 records its fills as done.)
 */
export const migration: Migration = {
  id: 22,
  name: 'call-tokens-by-indexer',
  sqlite: String.raw`
  CREATE TABLE call_tokens (
    project_id TEXT NOT NULL,
    is_null INTEGER NOT NULL,
    tokens REAL NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, is_null, tokens, id)
  ) WITHOUT ROWID;
  `,
  postgres: String.raw`
CREATE TABLE call_tokens (
  project_id text COLLATE "C" NOT NULL,
  is_null smallint NOT NULL,
  tokens float8 NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, is_null, tokens, id)
);
`,
};
