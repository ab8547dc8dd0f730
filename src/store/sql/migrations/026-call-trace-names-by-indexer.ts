import type { Migration } from './migration.js';

/**
 * The trace-name sort without a scan (docs/query-performance.md "The trace-name sort off the commit
 * path"): `call_trace_names (project_id, root, kind, name_key, id)`, each call's
 * `summary.weave.trace_name` keyed as `call_display` keys the display name (calls-query/names.ts: whole
 * names, the first characters of long ones, NULL names apart), after whether the call is a trace root
 * (`root`: the traces page reads roots only, and a root op's name sorts apart from its children's),
 * with `call_trace_names_by_id_desc` for the walks whose `id` tie-break runs against the name's
 * direction. Written by the call indexer for the calls it indexes
 * (call-indexes/text-index.ts), never by the call writers.
 *
 * Nothing is filled here (a migration that reads every call would hold the upgrade for minutes at
 * millions of calls): the background fill of migration 025 (`call_entry_fills`, entries
 * 'trace_names'; call-indexes/entry-fills.ts) writes the entries of the calls indexed before, and the sort
 * walks the entries only once it is done.
 */
export const migration: Migration = {
  id: 26,
  name: 'call-trace-names-by-indexer',
  sqlite: String.raw`
  CREATE TABLE call_trace_names (
    project_id TEXT NOT NULL,
    root INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    name_key TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, root, kind, name_key, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_trace_names_by_id_desc ON call_trace_names (project_id, root, kind, name_key, id DESC);
  `,
  postgres: String.raw`
CREATE TABLE call_trace_names (
  project_id text COLLATE "C" NOT NULL,
  root smallint NOT NULL,
  kind smallint NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, root, kind, name_key, id)
);
CREATE INDEX call_trace_names_by_id_desc ON call_trace_names (project_id, root, kind, name_key, id DESC);
`,
};
