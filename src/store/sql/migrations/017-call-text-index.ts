import type { Migration } from './migration.js';

/**
 * The substring index of `$contains` (issue 16, docs/query-performance.md "Substrings"). Empty at
 * first on both stores and never written by the call writers: a background indexer
 * (src/store/sql/call-indexes/text-index.ts) fills it after ingest, following `calls.change_seq`, and
 * `call_text_marks` records per project how far it is:
 *
 * - `call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id)`: every call of the
 *   project whose `(change_seq, id)` is at most `(indexed_seq, indexed_id)` has its current text in
 *   the index (the id splits the calls of one big write over several steps). Calls without a
 *   `change_seq` (written before migration 008, or imported) are indexed first, in id order
 *   (`null_id` the last one done); `nulls_done = 1` once they all are. A query uses the index only
 *   when `nulls_done = 1`, and reads the calls after `indexed_seq` (the tail) as well.
 * - SQLite: `call_text_fts`, an FTS5 table with the trigram tokenizer, contentless (the text is not
 *   stored twice) with `contentless_delete=1` so an entry can be replaced; its rowid is the rowid
 *   of the call in `calls`.
 * - PostgreSQL: `call_texts (project_id, id, text)` with a GIN index of `pg_trgm` trigrams behind
 *   the project (`btree_gin`), `fastupdate` on so inserts go to the pending list and merge in bulk.
 *   Both extensions are contrib modules marked trusted (PostgreSQL 13+).
 */
export const migration: Migration = {
  id: 17,
  name: 'call-text-index',
  sqlite: String.raw`
  CREATE TABLE call_text_marks (
    project_id TEXT PRIMARY KEY,
    indexed_seq INTEGER NOT NULL,
    indexed_id TEXT NOT NULL,
    nulls_done INTEGER NOT NULL,
    null_id TEXT NOT NULL
  );
  CREATE VIRTUAL TABLE call_text_fts USING fts5(text, tokenize = 'trigram', content = '', contentless_delete = 1);
  `,
  postgres: String.raw`
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE TABLE call_text_marks (
  project_id text COLLATE "C" PRIMARY KEY,
  indexed_seq bigint NOT NULL,
  indexed_id text COLLATE "C" NOT NULL,
  nulls_done integer NOT NULL,
  null_id text COLLATE "C" NOT NULL
);
CREATE TABLE call_texts (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  text text NOT NULL,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX call_texts_by_trigram ON call_texts USING gin (project_id, text gin_trgm_ops) WITH (fastupdate = on);

-- The text of one JSON column for the index: its compact rendering (heddle_json_text, what
-- postgres-dialect.ts jsonRender shows for objects and arrays, numbers and booleans inside it as
-- rendered), then each string leaf that does not occur unescaped in it. JSON text escapes only
-- with a backslash: without one, every string leaf is in the rendering as it is.
CREATE FUNCTION heddle_call_text(j jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN j IS NULL THEN '' WHEN strpos(w, '\') = 0 THEN w ELSE w || COALESCE((
    SELECT E'\n' || string_agg(s, E'\n') FROM (SELECT v #>> '{}' AS s FROM jsonb_path_query(j, 'strict $.**') AS l(v)
      WHERE jsonb_typeof(v) = 'string') leaves WHERE strpos(w, s) = 0), '') END
  FROM (SELECT heddle_json_text(j) AS w) rendered
$$;

-- Deleted calls (retention, project deletion) take their text with them; only deletions pay for it.
CREATE FUNCTION heddle_delete_call_texts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM call_texts x USING heddle_old_calls o WHERE x.project_id = o.project_id AND x.id = o.id;
  RETURN NULL;
END $$;
CREATE TRIGGER calls_text_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS heddle_old_calls
  FOR EACH STATEMENT EXECUTE FUNCTION heddle_delete_call_texts();
`,
};
