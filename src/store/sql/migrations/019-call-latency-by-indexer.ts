import { insertLatencySql } from '../calls-latency.js';
import type { Migration } from './migration.js';

/**
 * The latency sort's index leaves the commit path (docs/query-performance.md "Latency sort"):
 * `calls_by_latency (project_id, latency_ms, id)` cost the SQLite writer ≈ 7 µs and 2.4 KB of WAL
 * per call (random keys in small commits dirty about one B-tree page per entry). In its place
 * `call_latency (project_id, latency_ms, id)`, written by the call indexer with the substring index
 * and `call_values` (call-text-index.ts), under the same per-project mark: a call at or below the
 * mark has an entry keyed by its latency (NULL latencies under NULL_LATENCY_KEY, after every real
 * one). Stale entries of calls whose latency changed stay; queries skip them by comparing with
 * `calls.latency_ms` and read the calls after the mark from `calls_by_change` (calls-select.ts).
 *
 * The entries of the calls already at or below each mark are written here (one INSERT … SELECT,
 * like 016's index build): those without a `change_seq` up to `null_id` (all of them once
 * `nulls_done`), and those up to `(indexed_seq, indexed_id)`.
 */
const FILL = insertLatencySql(
  'calls c JOIN call_text_marks m ON m.project_id = c.project_id',
  `(c.change_seq IS NULL AND (m.nulls_done = 1 OR c.id <= m.null_id))
    OR (m.nulls_done = 1 AND (c.change_seq, c.id) <= (m.indexed_seq, m.indexed_id))`,
);

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
  ${FILL};
  DROP INDEX IF EXISTS calls_by_latency;
  `,
  postgres: String.raw`
CREATE TABLE call_latency (
  project_id text COLLATE "C" NOT NULL,
  latency_ms bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, latency_ms, id)
);
${FILL};
DROP INDEX IF EXISTS calls_by_latency;
`,
};
