import type { Migration } from './migration.js';

/**
 * Query speed at scale (issue 16, docs/query-performance.md). Creates empty structures (the one
 * part that reads existing calls is SQLite's latency index build, an entry per visible call with a
 * NULL latency; on PostgreSQL the background job builds that index CONCURRENTLY when `calls` has
 * rows); what existing calls need is filled afterwards by the `backfill_call_indexes` background job
 * (src/store/sql/call-indexes/backfill.ts), which this migration queues when `calls` has rows:
 *
 * - `calls.latency_ms`: `summary.weave.latency_ms` as a plain column, written by the call writers
 *   (NULL while running), indexed as `calls_by_latency (project_id, latency_ms, id)`.
 * - `call_values (project_id, path, value, call_id)`: the short string leaves of `inputs`
 *   (src/domain/value-leaves.ts), written by the call writers in the same transaction as the call.
 * - `call_counts`: the visible calls (started, not deleted) of each project per hour of
 *   `started_at`. PostgreSQL keeps it by triggers on `calls` (inserts counted per statement).
 *   SQLite's call writer counts starts per batch (sqlite/call-counting.ts: a row trigger on insert
 *   cost ~20 µs per call), triggers count deletions, and the project import counts what it inserts.
 * - `call_index_builds`: the backfill's position, one row while it is pending (none on a store that
 *   had no calls, and none once it is done). `bound` is the last key of `calls` when
 *   the migration ran: every call after it is newer than the migration, so the writers and triggers
 *   have indexed it. The backfill walks the keys up to `bound`; the indexes are complete for a
 *   project once the cursor has passed it or when it sorts after `bound` (or the row is gone), and the query
 *   compiler uses them only then. The counter triggers count only rows the backfill will not pass
 *   (key <= cursor or key > bound), the backfill counts the others as it passes them, so no row is
 *   counted twice or missed. On PostgreSQL the backfill holds an advisory lock exclusively while it
 *   moves the cursor and the triggers share it while the backfill is not done, so a write is never
 *   between the two.
 */
const HOUR = 3_600_000_000;
const VISIBLE = 'started_at IS NOT NULL AND deleted_at IS NULL';

/** PostgreSQL's latency index after `CREATE INDEX` (the backfill job builds it CONCURRENTLY). */
export const LATENCY_INDEX_PG_COLUMNS = `calls_by_latency ON calls (project_id, latency_ms DESC NULLS LAST, id DESC) WHERE ${VISIBLE}`;
const LATENCY_INDEX_PG = `CREATE INDEX ${LATENCY_INDEX_PG_COLUMNS}`;
/** The advisory lock of the backfill (PostgreSQL): call-indexes/backfill.ts takes it exclusively. */
export const CALL_INDEX_LOCK_KEY = '4811014';

/** SQLite: whether the backfill has passed the row `row` (`new`/`old`). */
export const sqliteCovered = (row: string): string =>
  `NOT EXISTS (SELECT 1 FROM call_index_builds b WHERE NOT (COALESCE((${row}.project_id, ${row}.id) <= (b.cursor_project, b.cursor_id), 0)
    OR (${row}.project_id, ${row}.id) > (b.bound_project, b.bound_id)))`;
const sqliteVisible = (row: string): string => `${row}.started_at IS NOT NULL AND ${row}.deleted_at IS NULL`;
const sqliteAdd = `INSERT INTO call_counts (project_id, bucket, calls) VALUES (new.project_id, new.started_at / ${HOUR}, 1)
    ON CONFLICT (project_id, bucket) DO UPDATE SET calls = calls + 1;`;
const sqliteRemove = `UPDATE call_counts SET calls = calls - 1 WHERE project_id = old.project_id AND bucket = old.started_at / ${HOUR};`;

/** PostgreSQL: reads the backfill's row into `b` (all NULL when done), sharing its lock while it is pending. */
const PG_READ_BUILD = `
  SELECT * INTO b FROM call_index_builds;
  IF FOUND THEN
    PERFORM pg_advisory_xact_lock_shared(${CALL_INDEX_LOCK_KEY});
    SELECT * INTO b FROM call_index_builds;
  END IF;`;
const pgCovered = (row: string): string =>
  `(b.name IS NULL OR COALESCE((${row}project_id, ${row}id) <= (b.cursor_project COLLATE "C", b.cursor_id COLLATE "C"), FALSE)
    OR (${row}project_id, ${row}id) > (b.bound_project COLLATE "C", b.bound_id COLLATE "C"))`;

/** The backfill's row when there are calls, bounded by the last key (the primary key's last entry). */
const insertBuild = `
  INSERT INTO call_index_builds (name, cursor_project, cursor_id, bound_project, bound_id, calls_done)
    SELECT 'calls', NULL, NULL, last.project_id, last.id, 0
    FROM (SELECT project_id, id FROM calls ORDER BY project_id DESC, id DESC LIMIT 1) last;`;

const MICROS_NOW_SQLITE = "CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)";
const MICROS_NOW_PG = '(extract(epoch FROM clock_timestamp()) * 1000000)::bigint';
/** The job that fills the structures for the calls stored before this migration. */
const queueBackfill = (now: string): string => `
INSERT INTO background_jobs (project_id, id, kind, status, input, created_by, created_at, attempts, max_attempts, fencing_token)
  SELECT '', 'backfill-call-indexes-014', 'backfill_call_indexes', 'queued', '{}', 'migration-014', ${now}, 0, 1000, 0
  WHERE EXISTS (SELECT 1 FROM calls);`;

export const migration: Migration = {
  id: 16,
  name: 'call-counts-and-latency',
  sqlite: String.raw`
  CREATE TABLE call_index_builds (
    name TEXT PRIMARY KEY,
    cursor_project TEXT,
    cursor_id TEXT,
    bound_project TEXT,
    bound_id TEXT,
    calls_done INTEGER NOT NULL
  );
  ${insertBuild}
  ${queueBackfill(MICROS_NOW_SQLITE)}

  CREATE TABLE call_counts (
    project_id TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    PRIMARY KEY (project_id, bucket)
  );
  CREATE TRIGGER calls_count_update_old AFTER UPDATE OF deleted_at ON calls
    WHEN ${sqliteVisible('old')} AND NOT (${sqliteVisible('new')}) AND ${sqliteCovered('old')}
  BEGIN ${sqliteRemove} END;
  CREATE TRIGGER calls_count_update_new AFTER UPDATE OF deleted_at ON calls
    WHEN ${sqliteVisible('new')} AND NOT (${sqliteVisible('old')}) AND ${sqliteCovered('new')}
  BEGIN ${sqliteAdd} END;
  CREATE TRIGGER calls_count_delete AFTER DELETE ON calls WHEN ${sqliteVisible('old')} AND ${sqliteCovered('old')}
  BEGIN ${sqliteRemove} END;

  ALTER TABLE calls ADD COLUMN latency_ms INTEGER;
  CREATE INDEX calls_by_latency ON calls (project_id, latency_ms, id) WHERE ${VISIBLE};

  CREATE TABLE call_values (
    project_id TEXT NOT NULL,
    path TEXT NOT NULL,
    value TEXT NOT NULL,
    call_id TEXT NOT NULL,
    PRIMARY KEY (project_id, path, value, call_id)
  ) WITHOUT ROWID;
  `,
  postgres: String.raw`
CREATE TABLE call_index_builds (
  name text COLLATE "C" PRIMARY KEY,
  cursor_project text COLLATE "C",
  cursor_id text COLLATE "C",
  bound_project text COLLATE "C",
  bound_id text COLLATE "C",
  calls_done bigint NOT NULL
);
${insertBuild}
${queueBackfill(MICROS_NOW_PG)}

CREATE TABLE call_counts (
  project_id text COLLATE "C" NOT NULL,
  bucket bigint NOT NULL,
  calls bigint NOT NULL,
  PRIMARY KEY (project_id, bucket)
);

-- rows are added in (project_id, bucket) order, so concurrent writers lock counters in one order
CREATE FUNCTION heddle_count_inserted_calls() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE b call_index_builds%ROWTYPE;
BEGIN ${PG_READ_BUILD}
  INSERT INTO call_counts (project_id, bucket, calls)
    SELECT project_id, started_at / ${HOUR}, COUNT(*) FROM heddle_new_calls WHERE ${VISIBLE} AND ${pgCovered('')}
    GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + excluded.calls;
  RETURN NULL;
END $$;
CREATE FUNCTION heddle_count_deleted_calls() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE b call_index_builds%ROWTYPE;
BEGIN ${PG_READ_BUILD}
  UPDATE call_counts k SET calls = k.calls - d.n
  FROM (SELECT project_id, started_at / ${HOUR} AS bucket, COUNT(*) AS n FROM heddle_old_calls
        WHERE ${VISIBLE} AND ${pgCovered('')} GROUP BY 1, 2) d
  WHERE k.project_id = d.project_id AND k.bucket = d.bucket;
  RETURN NULL;
END $$;
CREATE FUNCTION heddle_count_updated_call() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE b call_index_builds%ROWTYPE;
BEGIN ${PG_READ_BUILD}
  IF NOT ${pgCovered('NEW.')} THEN RETURN NULL; END IF;
  IF OLD.started_at IS NOT NULL AND OLD.deleted_at IS NULL THEN
    UPDATE call_counts SET calls = calls - 1 WHERE project_id = OLD.project_id AND bucket = OLD.started_at / ${HOUR};
  END IF;
  IF NEW.started_at IS NOT NULL AND NEW.deleted_at IS NULL THEN
    INSERT INTO call_counts (project_id, bucket, calls) VALUES (NEW.project_id, NEW.started_at / ${HOUR}, 1)
    ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER calls_count_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS heddle_new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION heddle_count_inserted_calls();
CREATE TRIGGER calls_count_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS heddle_old_calls
  FOR EACH STATEMENT EXECUTE FUNCTION heddle_count_deleted_calls();
CREATE TRIGGER calls_count_update AFTER UPDATE OF started_at, deleted_at ON calls FOR EACH ROW
  WHEN ((OLD.started_at IS NOT NULL AND OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.started_at IS NOT NULL AND NEW.deleted_at IS NULL)
    OR (OLD.started_at / ${HOUR}) IS DISTINCT FROM (NEW.started_at / ${HOUR}))
  EXECUTE FUNCTION heddle_count_updated_call();

ALTER TABLE calls ADD COLUMN latency_ms bigint;
-- on an empty table here; otherwise the backfill job builds it CONCURRENTLY, without blocking
-- writes (postgres/latency-index.ts)
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM calls) THEN ${LATENCY_INDEX_PG}; END IF;
END $$;

CREATE TABLE call_values (
  project_id text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  call_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, path, value, call_id)
);
`,
};
