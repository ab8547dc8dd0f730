import type { Migration } from './migration.js';

/**
 * The status filter and sort of the traces page, which lists trace roots only by default, without
 * walking the children's entries (docs/query-performance.md "The status filter and sort off the
 * commit path", "Roots only"): `call_status_roots (project_id, status, started_at, id)` and
 * `call_status_roots_by_id`, the `call_status` entries (migration 020) of the calls that were trace
 * roots when the call indexer wrote them. Along `call_status` a roots-only page of a status that
 * children hold far more often than roots (errors of tools under a root that recovers) read the
 * children's entries until it found as many roots.
 *
 * Nothing is filled here: the indexer's fill 'status_roots' (call-indexes/entry-fills.ts) writes the entries
 * of the calls it had indexed before, in the background, and the walk reads them once that is done.
 */
export const migration: Migration = {
  id: 30,
  name: 'call-status-roots',
  sqlite: String.raw`
  CREATE TABLE call_status_roots (
    project_id TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, status, started_at, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_status_roots_by_id ON call_status_roots (project_id, status, id);
  `,
  postgres: String.raw`
CREATE TABLE call_status_roots (
  project_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  started_at bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, status, started_at, id)
);
CREATE INDEX call_status_roots_by_id ON call_status_roots (project_id, status, id);
`,
};
