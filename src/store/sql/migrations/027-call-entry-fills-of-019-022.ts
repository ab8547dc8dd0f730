import type { Migration } from './migration.js';

/**
 * The entries of migrations 019–022 (`call_latency`, `call_status`, `call_display`, `call_tokens`)
 * are filled in the background like those of 025 and 026 (call-indexes/entry-fills.ts): an upgrade no longer
 * writes them for every call the indexer had passed, which held it for minutes at millions of calls
 * (docs/query-performance.md "Entries filled in the background").
 *
 * A project whose fill has no row in `call_entry_fills` is filled from its first call, and its walk
 * keeps the plain plan until that is done. The stores upgraded through the released 019–022 already
 * hold every such entry: here each project with a mark and at least one entry in the table has that
 * fill recorded as done (one index seek a project and table). Those upgraded through the present
 * 019–022 have no entry there yet, so their projects get no row and are filled.
 */
const FILLS = [
  ['latency', 'call_latency'],
  ['status', 'call_status'],
  ['display', 'call_display'],
  ['tokens', 'call_tokens'],
] as const;

const doneWhereEntries = FILLS.map(
  ([entries, table]) => `INSERT INTO call_entry_fills (project_id, entries, filled_after)
  SELECT m.project_id, '${entries}', NULL FROM call_text_marks m
  WHERE EXISTS (SELECT 1 FROM ${table} e WHERE e.project_id = m.project_id)
  ON CONFLICT (project_id, entries) DO NOTHING`,
);

export const migration: Migration = {
  id: 27,
  name: 'call-entry-fills-of-019-022',
  sqlite: doneWhereEntries,
  postgres: doneWhereEntries,
};
