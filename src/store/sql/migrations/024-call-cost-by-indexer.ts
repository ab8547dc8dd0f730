import type { Migration } from './migration.js';

/**
 * The cost sort without a scan (docs/query-performance.md "The cost sort off the commit path"):
 * `call_cost (project_id, gen, is_null, cost, id)`, each call's `summary.weave.total_cost` at the
 * prices of its project's generation `gen` (`root = 1` for a trace root, whose entries
 * `call_cost_roots` also holds: the traces page lists roots only by default), and `call_cost_gens`, one row per project: the current
 * generation, the built-in prices it was priced with (`prices`, calls-query/cost.ts `defaultPricesStamp`)
 * and, while the generation is being written, the last call id written (`rebuilt_after`; NULL once
 * every call has its entry) and the highest id to write (`rebuild_until`, set by the first step). Written by the call indexer (call-indexes/cost-entries.ts), never by the call
 * writers; a change of the project's prices starts a new generation (cost-store.ts).
 *
 * Nothing is filled here: the indexer writes every project's first generation in the background,
 * and the cost sort scans until it is complete.
 */
export const migration: Migration = {
  id: 24,
  name: 'call-cost-by-indexer',
  sqlite: String.raw`
  CREATE TABLE call_cost (
    project_id TEXT NOT NULL,
    gen INTEGER NOT NULL,
    is_null INTEGER NOT NULL,
    cost REAL NOT NULL,
    id TEXT NOT NULL,
    root INTEGER NOT NULL,
    PRIMARY KEY (project_id, gen, is_null, cost, id)
  ) WITHOUT ROWID;
  CREATE INDEX call_cost_roots ON call_cost (project_id, gen, is_null, cost, id) WHERE root = 1;
  CREATE TABLE call_cost_gens (
    project_id TEXT PRIMARY KEY,
    gen INTEGER NOT NULL,
    prices TEXT NOT NULL,
    rebuilt_after TEXT,
    rebuild_until TEXT
  );
  `,
  postgres: String.raw`
CREATE TABLE call_cost (
  project_id text COLLATE "C" NOT NULL,
  gen bigint NOT NULL,
  is_null smallint NOT NULL,
  cost float8 NOT NULL,
  id text COLLATE "C" NOT NULL,
  root smallint NOT NULL,
  PRIMARY KEY (project_id, gen, is_null, cost, id)
);
CREATE INDEX call_cost_roots ON call_cost (project_id, gen, is_null, cost, id) WHERE root = 1;
CREATE TABLE call_cost_gens (
  project_id text COLLATE "C" PRIMARY KEY,
  gen bigint NOT NULL,
  prices text NOT NULL,
  rebuilt_after text COLLATE "C",
  rebuild_until text COLLATE "C"
);
`,
};
