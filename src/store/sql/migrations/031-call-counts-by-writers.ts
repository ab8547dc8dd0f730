import type { Migration } from './migration.js';
import { CALL_INDEX_LOCK_KEY } from './016-call-counts-and-latency.js';

/**
 * PostgreSQL's call counters and text deletions without triggers on `calls` (issue 31): the
 * statement triggers of migrations 016 and 017 read transition tables, which do not exist on the
 * shards of a Citus cluster (`executor could not find named tuplestore`), and Citus refuses to
 * distribute a table with triggers. The writers keep `call_counts` instead, in the transaction of
 * the write, through two functions that run on the node that is asked (the coordinator under
 * Citus), each of its statements on one project, so one shard:
 *
 * - `heddle_count_calls(project, ids, buckets, deltas)`: adds `deltas` to the project's hour
 *   counters, for the calls of `ids` the index backfill has passed or will never pass (what the
 *   triggers counted; call-indexes/backfill.ts counts the others as it passes them), taking the
 *   backfill's lock shared while it is pending, as the triggers did. The call writer passes the
 *   changes of the calls it wrote (postgres/call-counts.ts).
 * - `heddle_recount_calls(project, ids, sign)`: adds (`sign` 1) or subtracts (-1) the stored visible
 *   calls of `ids`: the project import after its inserts, the retention before its deletes, which
 *   also take the calls' texts out of `call_texts` (a removed call's text goes with it).
 *
 * SQLite keeps its triggers (one writer, no shards): nothing changes there.
 */
const HOUR = 3_600_000_000;
const READ_BUILD = `
  SELECT * INTO b FROM call_index_builds;
  IF FOUND THEN
    PERFORM pg_advisory_xact_lock_shared(${CALL_INDEX_LOCK_KEY});
    SELECT * INTO b FROM call_index_builds;
  END IF;`;
/** Whether the backfill has passed the key (`project`, `id`) or never will (migration 016's test). */
const covered = (project: string, id: string): string =>
  `(b.name IS NULL OR COALESCE((${project}, ${id}) <= (b.cursor_project COLLATE "C", b.cursor_id COLLATE "C"), FALSE)
    OR (${project}, ${id}) > (b.bound_project COLLATE "C", b.bound_id COLLATE "C"))`;

export const migration: Migration = {
  id: 31,
  name: 'call-counts-by-writers',
  sqlite: [],
  postgres: String.raw`
DROP TRIGGER IF EXISTS calls_count_insert ON calls;
DROP TRIGGER IF EXISTS calls_count_delete ON calls;
DROP TRIGGER IF EXISTS calls_count_update ON calls;
DROP TRIGGER IF EXISTS calls_text_delete ON calls;
DROP FUNCTION IF EXISTS heddle_count_inserted_calls();
DROP FUNCTION IF EXISTS heddle_count_deleted_calls();
DROP FUNCTION IF EXISTS heddle_count_updated_call();
DROP FUNCTION IF EXISTS heddle_delete_call_texts();

-- counters in bucket order, so concurrent writers lock them in one order
CREATE FUNCTION heddle_count_calls(project text, ids text[], buckets bigint[], deltas bigint[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE b call_index_builds%ROWTYPE;
BEGIN ${READ_BUILD}
  INSERT INTO call_counts (project_id, bucket, calls)
    SELECT project, k.bucket, SUM(k.delta) FROM unnest(ids, buckets, deltas) AS k(id, bucket, delta)
    WHERE ${covered('project COLLATE "C"', 'k.id COLLATE "C"')}
    GROUP BY k.bucket HAVING SUM(k.delta) <> 0 ORDER BY k.bucket
  ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + excluded.calls;
  RETURN 0;
END $$;

CREATE FUNCTION heddle_recount_calls(project text, ids text[], sign bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE b call_index_builds%ROWTYPE;
BEGIN ${READ_BUILD}
  INSERT INTO call_counts (project_id, bucket, calls)
    SELECT c.project_id, c.started_at / ${HOUR}, sign * COUNT(*) FROM calls c
    WHERE c.project_id = project AND c.id = ANY(ids) AND c.started_at IS NOT NULL AND c.deleted_at IS NULL
      AND ${covered('c.project_id', 'c.id')}
    GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + excluded.calls;
  IF sign < 0 THEN
    DELETE FROM call_texts x WHERE x.project_id = project AND x.id = ANY(ids);
  END IF;
  RETURN 0;
END $$;
`,
};
