import type { Migration } from './migration.js';

/** Objects with versions, tags and aliases; files stored in chunks (docs/spec/objects.md §2, §6). */
export const migration: Migration = {
  id: 2,
  name: 'objects-and-files',
  sqlite: String.raw`
  CREATE TABLE object_versions (
    project_id TEXT NOT NULL,
    object_id TEXT NOT NULL,
    version_index INTEGER NOT NULL,
    digest TEXT NOT NULL,
    kind TEXT NOT NULL,
    base_object_class TEXT,
    leaf_object_class TEXT,
    val TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    wb_user_id TEXT,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER,
    is_latest INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, object_id, version_index)
  );
  CREATE UNIQUE INDEX object_versions_live_digest ON object_versions (project_id, object_id, digest) WHERE deleted_at IS NULL;
  CREATE INDEX object_versions_by_digest ON object_versions (project_id, digest);
  CREATE INDEX object_versions_by_created ON object_versions (project_id, created_at, version_index) WHERE deleted_at IS NULL;
  CREATE INDEX object_versions_latest ON object_versions (project_id, object_id) WHERE is_latest = 1;
  CREATE TABLE object_tags (
    project_id TEXT NOT NULL,
    object_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    tag TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, object_id, digest, tag)
  );
  CREATE INDEX object_tags_by_tag ON object_tags (project_id, tag);
  CREATE TABLE object_aliases (
    project_id TEXT NOT NULL,
    object_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, object_id, alias)
  );
  CREATE INDEX object_aliases_by_digest ON object_aliases (project_id, object_id, digest);
  CREATE INDEX object_aliases_by_alias ON object_aliases (project_id, alias);
  CREATE TABLE files (
    project_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    blob_id TEXT NOT NULL,
    name TEXT,
    size_bytes INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, digest)
  );
  CREATE TABLE file_chunks (
    project_id TEXT NOT NULL,
    blob_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (project_id, blob_id, seq)
  );
  `,
  postgres: String.raw`
CREATE TABLE object_versions (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  version_index integer NOT NULL,
  digest text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  base_object_class text COLLATE "C",
  leaf_object_class text COLLATE "C",
  val text NOT NULL,
  size_bytes bigint NOT NULL,
  wb_user_id text COLLATE "C",
  created_at bigint NOT NULL,
  deleted_at bigint,
  is_latest smallint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, object_id, version_index)
);
CREATE UNIQUE INDEX object_versions_live_digest ON object_versions (project_id, object_id, digest) WHERE deleted_at IS NULL;
CREATE INDEX object_versions_by_digest ON object_versions (project_id, digest);
CREATE INDEX object_versions_by_created ON object_versions (project_id, created_at, version_index) WHERE deleted_at IS NULL;
CREATE INDEX object_versions_latest ON object_versions (project_id, object_id) WHERE is_latest = 1;
CREATE TABLE object_tags (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  tag text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, object_id, digest, tag)
);
CREATE INDEX object_tags_by_tag ON object_tags (project_id, tag);
CREATE TABLE object_aliases (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  alias text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, object_id, alias)
);
CREATE INDEX object_aliases_by_digest ON object_aliases (project_id, object_id, digest);
CREATE INDEX object_aliases_by_alias ON object_aliases (project_id, alias);

CREATE TABLE files (
  project_id text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  blob_id text COLLATE "C" NOT NULL,
  name text,
  size_bytes bigint NOT NULL,
  chunk_count integer NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, digest)
);
CREATE TABLE file_chunks (
  project_id text COLLATE "C" NOT NULL,
  blob_id text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (project_id, blob_id, seq)
);
-- chunks are mostly compressed or random bytes: store them out of line without trying to compress
ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
`,
};
