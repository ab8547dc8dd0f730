/**
 * Tables of objects spec §4 on PostgreSQL (the SQLite schema's tables migration): row bodies once
 * per (project, row digest), tables as ordered row digests. `val` is the canonical text the row
 * digest was computed from, kept as TEXT so it comes back byte for byte.
 */
export const TABLE_STORE_SQL = String.raw`
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
`;
