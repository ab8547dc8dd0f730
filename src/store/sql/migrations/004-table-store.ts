import type { Migration } from './migration.js';

/**
 * Tables (docs/spec/objects.md §4): row bodies once per (project, row digest), tables as ordered row
 * digests. On PostgreSQL `val` stays TEXT so it comes back byte for byte, and
 * `heddle_compact_json` gives the compact JSON text SQLite's json_extract returns, which the table
 * sort compares.
 */
export const migration: Migration = {
  id: 4,
  name: 'table-store',
  sqlite: String.raw`
  CREATE TABLE table_rows (
    project_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    val TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, digest)
  ) WITHOUT ROWID;
  CREATE TABLE table_digests (
    project_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    row_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, digest)
  ) WITHOUT ROWID;
  CREATE TABLE table_entries (
    project_id TEXT NOT NULL,
    table_digest TEXT NOT NULL,
    pos INTEGER NOT NULL,
    row_digest TEXT NOT NULL,
    PRIMARY KEY (project_id, table_digest, pos)
  ) WITHOUT ROWID;
  `,
  postgres: String.raw`
CREATE TABLE table_rows (
  project_id text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  val text NOT NULL,
  size_bytes bigint NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, digest)
);
CREATE TABLE table_digests (
  project_id text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  row_count integer NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, digest)
);
CREATE TABLE table_entries (
  project_id text COLLATE "C" NOT NULL,
  table_digest text COLLATE "C" NOT NULL,
  pos integer NOT NULL,
  row_digest text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, table_digest, pos)
);

-- JSON text without the blanks after separators (canonical text prints ", " and ": "): the
-- compact form SQLite's json_extract returns for objects and lists, which the sort compares
CREATE FUNCTION heddle_compact_json(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT regexp_replace(t, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g') $$;
`,
};
