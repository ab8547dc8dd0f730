import type {
  AnnotationItemRow,
  AnnotationProgressRow,
  AnnotationQueueRow,
  AnnotationState,
  AnnotationStore,
  ProgressOutcome,
  QueueChanges,
} from '../annotation-types.js';
import { num, numOrNull, rowDecoder, text, textOf, textOrNull } from './row-decode.js';
import { raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { all, run, type Tx, type TxDialect, type TxRunner } from './core/sql-tx.js';

/**
 * The annotation-queue store written once for every adapter over the transaction runner
 * (core/sql-tx.ts): read-check-write steps (duplicates, progress transitions) run in one transaction, with
 * row locks on PostgreSQL and inside the single writer on SQLite.
 */

/** The columns every annotation table's rows share: key, author, times, soft delete. */
const recordColumns = {
  project_id: text,
  id: text,
  created_at: num,
  created_by: text,
  updated_at: num,
  deleted_at: numOrNull,
};

const queueFromDb = rowDecoder<AnnotationQueueRow>({
  ...recordColumns,
  name: text,
  description: text,
  scorer_refs: text,
});

const itemFromDb = rowDecoder<AnnotationItemRow>({
  ...recordColumns,
  queue_id: text,
  call_id: text,
  call_started_at: num,
  call_ended_at: numOrNull,
  call_op_name: text,
  call_trace_id: text,
  display_fields: text,
  added_by: textOrNull,
});

const progressFromDb = rowDecoder<AnnotationProgressRow>({
  item_id: text,
  annotator_user_id: text,
  annotation_state: textOf<AnnotationState>(),
  updated_at: num,
});

export class SqlAnnotationStore implements AnnotationStore {
  readonly #sql: SqlTag;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  async createQueue(q: AnnotationQueueRow): Promise<void> {
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* run(sql`INSERT INTO annotation_queues (project_id, id, name, description, scorer_refs, created_at, created_by, updated_at, deleted_at)
        VALUES (${q.project_id}, ${q.id}, ${q.name}, ${q.description}, ${q.scorer_refs}, ${q.created_at}, ${q.created_by}, ${q.updated_at}, ${q.deleted_at})`);
    });
  }

  async getQueue(projectId: string, id: string): Promise<AnnotationQueueRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM annotation_queues WHERE project_id = ${projectId} AND id = ${id}`,
    );
    return rows.length === 0 ? null : queueFromDb(rows[0]!);
  }

  async listQueues(projectId: string): Promise<AnnotationQueueRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM annotation_queues WHERE project_id = ${projectId} AND deleted_at IS NULL`,
    );
    return rows.map(queueFromDb);
  }

  *#lockLiveQueue(projectId: string, id: string): Tx<AnnotationQueueRow | null> {
    const sql = this.#sql;
    const rows = yield* all<Record<string, unknown>>(
      sql`SELECT * FROM annotation_queues WHERE project_id = ${projectId} AND id = ${id} AND deleted_at IS NULL ${raw(this.dialect.forUpdate)}`,
    );
    return rows.length === 0 ? null : queueFromDb(rows[0]!);
  }

  updateQueue(projectId: string, id: string, changes: QueueChanges, now: number): Promise<AnnotationQueueRow | null> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* () {
      const queue = yield* self.#lockLiveQueue(projectId, id);
      if (!queue || Object.keys(changes).length === 0) return queue;
      const next = { ...queue, ...changes, updated_at: now };
      yield* run(sql`UPDATE annotation_queues SET name = ${next.name}, description = ${next.description}, scorer_refs = ${next.scorer_refs}, updated_at = ${now}
        WHERE project_id = ${projectId} AND id = ${id}`);
      return next;
    });
  }

  deleteQueue(projectId: string, id: string, now: number): Promise<AnnotationQueueRow | null> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* () {
      const queue = yield* self.#lockLiveQueue(projectId, id);
      if (!queue) return null;
      yield* run(
        sql`UPDATE annotation_queues SET deleted_at = ${now}, updated_at = ${now} WHERE project_id = ${projectId} AND id = ${id}`,
      );
      return { ...queue, deleted_at: now, updated_at: now };
    });
  }

  addItems(
    projectId: string,
    queueId: string,
    items: AnnotationItemRow[],
  ): Promise<{ added: number; duplicates: number }> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* () {
      // the queue row lock serialises concurrent adds to one queue
      yield* self.#lockLiveQueue(projectId, queueId);
      const callIds = items.map((i) => i.call_id);
      const present =
        callIds.length === 0
          ? []
          : yield* all<{ call_id: string }>(sql`SELECT call_id FROM annotation_queue_items
            WHERE project_id = ${projectId} AND queue_id = ${queueId} AND deleted_at IS NULL AND call_id IN ${callIds}`);
      const existing = new Set(present.map((r) => String(r.call_id)));
      let added = 0;
      for (const item of items) {
        if (existing.has(item.call_id)) continue;
        existing.add(item.call_id);
        added += 1;
        yield* run(sql`INSERT INTO annotation_queue_items (project_id, id, queue_id, call_id, call_started_at, call_ended_at, call_op_name, call_trace_id,
            display_fields, added_by, created_at, created_by, updated_at, deleted_at)
          VALUES (${item.project_id}, ${item.id}, ${item.queue_id}, ${item.call_id}, ${item.call_started_at}, ${item.call_ended_at}, ${item.call_op_name},
            ${item.call_trace_id}, ${item.display_fields}, ${item.added_by}, ${item.created_at}, ${item.created_by}, ${item.updated_at}, ${item.deleted_at})`);
      }
      return { added, duplicates: new Set(callIds).size - added };
    });
  }

  async listItems(projectId: string, queueId: string): Promise<AnnotationItemRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this
        .#sql`SELECT * FROM annotation_queue_items WHERE project_id = ${projectId} AND queue_id = ${queueId} AND deleted_at IS NULL`,
    );
    return rows.map(itemFromDb);
  }

  async listProgress(projectId: string, queueId: string): Promise<AnnotationProgressRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this
        .#sql`SELECT item_id, annotator_user_id, annotation_state, updated_at FROM annotation_item_progress WHERE project_id = ${projectId} AND queue_id = ${queueId}`,
    );
    return rows.map(progressFromDb);
  }

  setProgress(
    projectId: string,
    queueId: string,
    itemId: string,
    annotator: string,
    state: AnnotationState,
    now: number,
  ): Promise<ProgressOutcome> {
    const sql = this.#sql;
    const forUpdate = raw(this.dialect.forUpdate);
    return this.tx.transaction(function* (): Tx<ProgressOutcome> {
      const own = yield* all<{
        annotation_state: AnnotationState;
      }>(sql`SELECT annotation_state FROM annotation_item_progress
        WHERE project_id = ${projectId} AND item_id = ${itemId} AND annotator_user_id = ${annotator} ${forUpdate}`);
      const current = own[0]?.annotation_state;
      if (current === state) return { ok: true };
      if (current !== undefined) {
        if (state === 'in_progress') return { ok: false, reason: 'in_progress_after_record', from: current };
        if (current !== 'in_progress') return { ok: false, reason: 'invalid_transition', from: current };
      }
      const item = yield* all<{ id: string }>(sql`SELECT id FROM annotation_queue_items
        WHERE project_id = ${projectId} AND id = ${itemId} AND queue_id = ${queueId} AND deleted_at IS NULL`);
      if (item.length === 0) return { ok: false, reason: 'item_not_found' };
      if (current === undefined) {
        yield* run(sql`INSERT INTO annotation_item_progress (project_id, item_id, annotator_user_id, queue_id, annotation_state, created_at, updated_at)
          VALUES (${projectId}, ${itemId}, ${annotator}, ${queueId}, ${state}, ${now}, ${now})`);
      } else {
        yield* run(sql`UPDATE annotation_item_progress SET annotation_state = ${state}, updated_at = ${now}
          WHERE project_id = ${projectId} AND item_id = ${itemId} AND annotator_user_id = ${annotator}`);
      }
      return { ok: true };
    });
  }

  async stats(projectId: string, queueIds: string[]): Promise<Map<string, { total: number; completed: number }>> {
    const out = new Map<string, { total: number; completed: number }>();
    if (queueIds.length === 0) return out;
    const rows = await this.tx.read<Record<string, unknown>>(this.#sql`SELECT i.queue_id,
        COUNT(*) AS total,
        SUM(CASE WHEN EXISTS (SELECT 1 FROM annotation_item_progress p WHERE p.project_id = i.project_id AND p.item_id = i.id
          AND p.annotation_state IN ('completed', 'skipped')) THEN 1 ELSE 0 END) AS completed
      FROM annotation_queue_items i WHERE i.project_id = ${projectId} AND i.deleted_at IS NULL AND i.queue_id IN ${[...new Set(queueIds)]}
      GROUP BY i.queue_id`);
    for (const r of rows) out.set(String(r.queue_id), { total: num(r.total), completed: num(r.completed ?? 0) });
    return out;
  }
}
