import type { Migration } from './migration.js';

/**
 * The op-name sort without a sort of every call of an op (docs/query-performance.md "The op-name
 * sort"): `call_op_names (project_id, root, kind, name_key, id)`, each call's `op_name` keyed as
 * `call_trace_names` keys the trace name (calls-query/names.ts: whole names, the first characters of long
 * ones, NULL names apart, after whether the call is a trace root), with `call_op_names_by_id_desc` for
 * the walks whose `id` tie-break runs against the name's direction (an ascending sort with the default
 * `id DESC`). `calls_by_op` orders an op's calls by start, not by id, so the first page of a sort by op
 * name sorted every call of the first op (107 ms at 100,000 calls in three ops, growing with the op).
 *
 * Nothing is filled here: the call indexer writes the entries of the calls it indexes, and its fill
 * 'op_names' (call-indexes/entry-fills.ts) those of the calls it had indexed before, in the background; the
 * sort walks the entries once that is done.
 */
export const migration: Migration = {
  id: 29,
  name: 'call-op-names',
  sqlite: String.raw`
  CREATE TABLE call_op_names (
    project_id TEXT NOT NULL,
    root INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    name_key TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, root, kind, name_key, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_op_names_by_id_desc ON call_op_names (project_id, root, kind, name_key, id DESC);
  `,
  postgres: String.raw`
CREATE TABLE call_op_names (
  project_id text COLLATE "C" NOT NULL,
  root smallint NOT NULL,
  kind smallint NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, root, kind, name_key, id)
);
CREATE INDEX call_op_names_by_id_desc ON call_op_names (project_id, root, kind, name_key, id DESC);
`,
};
