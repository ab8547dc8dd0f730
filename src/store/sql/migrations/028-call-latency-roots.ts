import type { Migration } from './migration.js';

/**
 * The latency sort of the traces page, which lists trace roots only by default, without walking the
 * children's entries (docs/query-performance.md "The latency sort off the commit path", "Roots
 * only"): `call_latency_roots (project_id, latency_ms, id)`, the `call_latency` entries (migration
 * 019) of the calls that were trace roots when the call indexer wrote them. A root spans its
 * children, so an ascending sort along `call_latency` read nearly every child's entry before the
 * first root (449 ms at 100,000 calls of bench/lib/workload.ts, growing with the project).
 * `call_latency_roots_by_id_desc` serves the walks whose `id` tie-break runs against the latency's
 * direction (ascending with the default `id DESC`): roots often share a latency (a timeout, a fixed
 * pipeline), and without it every tie of the page's latencies was sorted (44 ms at 100,000 calls
 * whose 20,000 roots all take 2 s).
 *
 * Nothing is filled here: the indexer's fill 'latency_roots' (call-indexes/entry-fills.ts) writes the entries
 * of the calls it had indexed before, in the background, and the sort walks them once that is done.
 */
export const migration: Migration = {
  id: 28,
  name: 'call-latency-roots',
  sqlite: String.raw`
  CREATE TABLE call_latency_roots (
    project_id TEXT NOT NULL,
    latency_ms INTEGER NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, latency_ms, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_latency_roots_by_id_desc ON call_latency_roots (project_id, latency_ms, id DESC);
  `,
  postgres: String.raw`
CREATE TABLE call_latency_roots (
  project_id text COLLATE "C" NOT NULL,
  latency_ms bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, latency_ms, id)
);
CREATE INDEX call_latency_roots_by_id_desc ON call_latency_roots (project_id, latency_ms, id DESC);
`,
};
