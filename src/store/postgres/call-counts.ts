import type pg from 'pg';

/**
 * `call_counts` (migration 016) kept by PostgreSQL's call writes (migration 031, which dropped the
 * counter triggers that Citus cannot run): a write that changes whether a stored call is visible
 * (started, not deleted), or the hour of its start, moves the project's hour counters by the
 * difference between the call's columns before the write (the roll-up's locking read,
 * rollup-writes.ts) and after it (the write's RETURNING), in the write's transaction, after the
 * calls are locked (the writers' one lock order: calls, then counters). Batches of new calls count
 * in their own statement instead (rollup-writes.ts newCallsSql).
 */

/** `call_counts` buckets: one hour of `started_at` in microseconds (migration 016). */
export const COUNT_BUCKET_US = 3_600_000_000;

/** The columns of a call that decide where (and whether) it is counted. */
export interface CountedColumns {
  project_id: string;
  id: string;
  started_at: number | string | null;
  deleted_at: number | string | null;
}

/** One project's counter changes, as heddle_count_calls takes them. */
export interface CountChanges {
  project: string;
  ids: string[];
  buckets: number[];
  deltas: number[];
}

/** The hour a visible call counts in, or null when it is not counted. */
function bucketOf(row: CountedColumns | undefined): number | null {
  if (row === undefined || row.started_at === null || row.deleted_at !== null) return null;
  return Math.trunc(Number(row.started_at) / COUNT_BUCKET_US);
}

/** The changes of a write, per project: `before` the stored rows the write found, `after` the rows it wrote. */
export function countChanges(
  before: readonly CountedColumns[],
  after: readonly CountedColumns[],
): Map<string, CountChanges> {
  const old = new Map<string, CountedColumns>();
  for (const row of before) old.set(`${row.project_id}\u0000${row.id}`, row);
  const out = new Map<string, CountChanges>();
  const add = (row: CountedColumns, bucket: number, delta: number): void => {
    let changes = out.get(row.project_id);
    if (!changes) out.set(row.project_id, (changes = { project: row.project_id, ids: [], buckets: [], deltas: [] }));
    changes.ids.push(row.id);
    changes.buckets.push(bucket);
    changes.deltas.push(delta);
  };
  for (const row of after) {
    const was = bucketOf(old.get(`${row.project_id}\u0000${row.id}`));
    const is = bucketOf(row);
    if (was === is) continue;
    if (was !== null) add(row, was, -1);
    if (is !== null) add(row, is, 1);
  }
  return out;
}

/** Applies the changes (heddle_count_calls, one statement per project) on a client inside the write's transaction. */
export async function applyCountChanges(client: pg.ClientBase, changes: Map<string, CountChanges>): Promise<void> {
  for (const project of [...changes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const c = changes.get(project)!;
    await client.query({
      name: 'heddle_count_calls',
      text: 'SELECT heddle_count_calls($1::text, $2::text[], $3::bigint[], $4::bigint[])',
      values: [c.project, c.ids, c.buckets, c.deltas],
    });
  }
}
