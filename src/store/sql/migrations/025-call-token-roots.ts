import type { Migration } from './migration.js';

/**
 * The token sort of the traces page, which lists trace roots only by default, without walking the
 * children's entries (docs/query-performance.md "The token sort off the commit path", "Roots only"):
 * `call_token_roots (project_id, is_null, tokens, id)`, the `call_tokens` entries (migration 022) of
 * the calls that were trace roots when the call indexer wrote them.
 *
 * `call_entry_fills (project_id, entries, filled_after, fill_until)` tracks the background fill of a
 * project's entries that a migration adds for calls the indexer had already passed (call-indexes/entry-fills.ts):
 * the last call id filled (NULL once every call of the project is) and the highest id to fill. Nothing is filled here: the indexer
 * fills each project in the background, with progress in the log, and until then a roots-only sort by
 * tokens walks `call_tokens` as before.
 */
export const migration: Migration = {
  id: 25,
  name: 'call-token-roots',
  sqlite: String.raw`
  CREATE TABLE call_token_roots (
    project_id TEXT NOT NULL,
    is_null INTEGER NOT NULL,
    tokens REAL NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, is_null, tokens, id)
  ) WITHOUT ROWID;
  CREATE TABLE call_entry_fills (
    project_id TEXT NOT NULL,
    entries TEXT NOT NULL,
    filled_after TEXT,
    fill_until TEXT,
    PRIMARY KEY (project_id, entries)
  );
  `,
  postgres: String.raw`
CREATE TABLE call_token_roots (
  project_id text COLLATE "C" NOT NULL,
  is_null smallint NOT NULL,
  tokens float8 NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, is_null, tokens, id)
);
CREATE TABLE call_entry_fills (
  project_id text COLLATE "C" NOT NULL,
  entries text COLLATE "C" NOT NULL,
  filled_after text COLLATE "C",
  fill_until text COLLATE "C",
  PRIMARY KEY (project_id, entries)
);
`,
};
