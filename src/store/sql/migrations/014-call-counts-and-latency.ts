import type { Migration } from './migration.js';

/**
 * Query speed at scale (issue 16, docs/query-performance.md):
 *
 * - `call_counts`: the visible calls (started, not deleted) of each project per hour of
 *   `started_at`, kept by triggers on `calls` in the same transaction as the write, so the count of
 *   all calls of a project is a sum over a few hundred rows instead of a scan. The backfill for
 *   existing calls is one aggregate over `calls` in this migration.
 * - `calls_by_latency`: the order of `summary.weave.latency_ms` (the expression of
 *   calls-expr.ts `LATENCY_MS_SQL`, written here without the table alias; test/store/contract/
 *   calls-plans.test.ts checks that the compiled sort still uses it).
 *
 * PostgreSQL counts inserted rows once per statement (a transition table), so a COPY or a batch
 * upsert adds one row per project and hour; updates and deletes that change whether a row counts
 * go through a row trigger whose WHEN clause skips every other write.
 */
const HOUR = 3_600_000_000;
const VISIBLE = 'started_at IS NOT NULL AND deleted_at IS NULL';
const LATENCY =
  '(CASE WHEN ended_at IS NULL THEN NULL ELSE ((ended_at - started_at) - ((((ended_at - started_at) % 1000) + 1000) % 1000)) / 1000 END)';

const VALUE_MAX = 128;
/**
 * The string leaves of `inputs` one and two object keys deep, as call_values rows (SQLite): from the
 * trigger's `new`/`old` row, or with `table` from every row of that table.
 */
const sqliteLeaves = (row: string, table = ''): string => {
  const from = table ? `${table} ${row}, ` : '';
  return `
    SELECT ${row}.project_id AS project_id, 'inputs' || char(31) || e.key AS path, e.atom AS value, ${row}.id AS call_id
      FROM ${from}json_each(${row}.inputs) e WHERE e.type = 'text' AND length(e.atom) <= ${VALUE_MAX}
    UNION ALL
    SELECT ${row}.project_id, 'inputs' || char(31) || e.key || char(31) || f.key, f.atom, ${row}.id
      FROM ${from}json_each(${row}.inputs) e, json_each(e.value) f
      WHERE e.type = 'object' AND f.type = 'text' AND length(f.atom) <= ${VALUE_MAX}`;
};

/** The same leaves of the rows in `source` (PostgreSQL); a non-object reads as {} so jsonb_each never fails. */
const postgresLeaves = (source: string): string => `
    SELECT n.project_id, 'inputs' || chr(31) || e.key, e.value #>> '{}', n.id
      FROM ${source} n, jsonb_each(CASE WHEN jsonb_typeof(n.inputs) = 'object' THEN n.inputs ELSE '{}' END) e
      WHERE jsonb_typeof(e.value) = 'string' AND length(e.value #>> '{}') <= ${VALUE_MAX}
    UNION ALL
    SELECT n.project_id, 'inputs' || chr(31) || e.key || chr(31) || f.key, f.value #>> '{}', n.id
      FROM ${source} n, jsonb_each(CASE WHEN jsonb_typeof(n.inputs) = 'object' THEN n.inputs ELSE '{}' END) e,
           jsonb_each(CASE WHEN jsonb_typeof(e.value) = 'object' THEN e.value ELSE '{}' END) f
      WHERE jsonb_typeof(f.value) = 'string' AND length(f.value #>> '{}') <= ${VALUE_MAX}`;

const sqliteVisible = (row: 'new' | 'old'): string => `${row}.started_at IS NOT NULL AND ${row}.deleted_at IS NULL`;
const sqliteAdd = `INSERT INTO call_counts (project_id, bucket, calls) VALUES (new.project_id, new.started_at / ${HOUR}, 1)
    ON CONFLICT (project_id, bucket) DO UPDATE SET calls = calls + 1;`;
const sqliteRemove = `UPDATE call_counts SET calls = calls - 1 WHERE project_id = old.project_id AND bucket = old.started_at / ${HOUR};`;
const bucketMoved = `(old.started_at / ${HOUR}) IS NOT (new.started_at / ${HOUR})`;

export const migration: Migration = {
  id: 14,
  name: 'call-counts-and-latency',
  sqlite: String.raw`
  CREATE TABLE call_counts (
    project_id TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    PRIMARY KEY (project_id, bucket)
  );
  INSERT INTO call_counts (project_id, bucket, calls)
    SELECT project_id, started_at / ${HOUR}, COUNT(*) FROM calls WHERE ${VISIBLE} GROUP BY 1, 2;
  CREATE TRIGGER calls_count_insert AFTER INSERT ON calls WHEN ${sqliteVisible('new')}
  BEGIN ${sqliteAdd} END;
  CREATE TRIGGER calls_count_update_old AFTER UPDATE OF started_at, deleted_at ON calls
    WHEN ${sqliteVisible('old')} AND (NOT (${sqliteVisible('new')}) OR ${bucketMoved})
  BEGIN ${sqliteRemove} END;
  CREATE TRIGGER calls_count_update_new AFTER UPDATE OF started_at, deleted_at ON calls
    WHEN ${sqliteVisible('new')} AND (NOT (${sqliteVisible('old')}) OR ${bucketMoved})
  BEGIN ${sqliteAdd} END;
  CREATE TRIGGER calls_count_delete AFTER DELETE ON calls WHEN ${sqliteVisible('old')}
  BEGIN ${sqliteRemove} END;
  CREATE INDEX calls_by_latency ON calls (project_id, ${LATENCY}, id) WHERE ${VISIBLE};

  CREATE TABLE call_values (
    project_id TEXT NOT NULL,
    path TEXT NOT NULL,
    value TEXT NOT NULL,
    call_id TEXT NOT NULL,
    PRIMARY KEY (project_id, path, value, call_id)
  ) WITHOUT ROWID;
  CREATE TRIGGER calls_values_insert AFTER INSERT ON calls WHEN new.inputs IS NOT NULL
  BEGIN INSERT OR IGNORE INTO call_values (project_id, path, value, call_id) ${sqliteLeaves('new')}; END;
  CREATE TRIGGER calls_values_update AFTER UPDATE OF inputs ON calls WHEN old.inputs IS NOT new.inputs
  BEGIN
    DELETE FROM call_values WHERE (project_id, path, value, call_id) IN (${sqliteLeaves('old')});
    INSERT OR IGNORE INTO call_values (project_id, path, value, call_id) ${sqliteLeaves('new')};
  END;
  INSERT OR IGNORE INTO call_values (project_id, path, value, call_id) ${sqliteLeaves('c', 'calls')};
  `,
  postgres: String.raw`
CREATE TABLE call_counts (
  project_id text COLLATE "C" NOT NULL,
  bucket bigint NOT NULL,
  calls bigint NOT NULL,
  PRIMARY KEY (project_id, bucket)
);
INSERT INTO call_counts (project_id, bucket, calls)
  SELECT project_id, started_at / ${HOUR}, COUNT(*) FROM calls WHERE ${VISIBLE} GROUP BY 1, 2;

-- rows are added in (project_id, bucket) order, so concurrent writers lock counters in one order
CREATE FUNCTION heddle_count_inserted_calls() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO call_counts (project_id, bucket, calls)
    SELECT project_id, started_at / ${HOUR}, COUNT(*) FROM heddle_new_calls WHERE ${VISIBLE}
    GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + excluded.calls;
  RETURN NULL;
END $$;
CREATE FUNCTION heddle_count_deleted_calls() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE call_counts k SET calls = k.calls - d.n
  FROM (SELECT project_id, started_at / ${HOUR} AS bucket, COUNT(*) AS n FROM heddle_old_calls WHERE ${VISIBLE}
        GROUP BY 1, 2) d
  WHERE k.project_id = d.project_id AND k.bucket = d.bucket;
  RETURN NULL;
END $$;
CREATE FUNCTION heddle_count_updated_call() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

CREATE INDEX calls_by_latency ON calls (project_id, ${LATENCY} DESC NULLS LAST, id DESC) WHERE ${VISIBLE};

CREATE TABLE call_values (
  project_id text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  call_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, path, value, call_id)
);
CREATE FUNCTION heddle_index_inserted_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO call_values (project_id, path, value, call_id) ${postgresLeaves('heddle_new_calls')}
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE FUNCTION heddle_index_updated_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM call_values WHERE (project_id, path, value, call_id) IN (${postgresLeaves('(SELECT OLD.*) ')});
  INSERT INTO call_values (project_id, path, value, call_id) ${postgresLeaves('(SELECT NEW.*) ')}
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER calls_values_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS heddle_new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION heddle_index_inserted_values();
CREATE TRIGGER calls_values_update AFTER UPDATE OF inputs ON calls FOR EACH ROW
  WHEN (OLD.inputs IS DISTINCT FROM NEW.inputs) EXECUTE FUNCTION heddle_index_updated_values();
INSERT INTO call_values (project_id, path, value, call_id) ${postgresLeaves('calls')} ON CONFLICT DO NOTHING;
`,
};
