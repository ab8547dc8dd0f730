import { uuidv7 } from '../domain/ids.js';
import { formatMicros, nowMicros } from '../domain/time.js';
import { InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import type * as S from '../schemas/annotation-queues.js';
import type {
  AnnotationItemRow,
  AnnotationProgressRow,
  AnnotationQueueRow,
  AnnotationState,
  QueueChanges,
} from '../store/annotation-types.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/**
 * Annotation queues (docs/spec/otel-service-queues.md §D): named lists of calls for human review. An item
 * is a snapshot of a call's identity; its state is derived from the per-annotator progress records
 * (the most recently updated one wins). The annotations themselves are feedback.
 */

const STATES: readonly AnnotationState[] = ['in_progress', 'completed', 'skipped'];
const QUEUE_SORT = new Set(['id', 'name', 'created_at', 'updated_at']);
const ITEM_SORT = new Set(['call_started_at', 'call_op_name', 'created_at', 'updated_at']);

type SortSpec = Array<{ field: string; direction: 'asc' | 'desc' }>;
const time = (micros: number | null): string | null => (micros === null ? null : formatMicros(micros));

function queueView(q: AnnotationQueueRow) {
  return {
    id: q.id,
    project_id: q.project_id,
    name: q.name,
    description: q.description,
    scorer_refs: JSON.parse(q.scorer_refs) as string[],
    created_at: formatMicros(q.created_at),
    created_by: q.created_by,
    updated_at: formatMicros(q.updated_at),
    deleted_at: time(q.deleted_at),
  };
}

interface DerivedItem {
  row: AnnotationItemRow;
  state: AnnotationState | 'unstarted';
  annotator: string;
}

function itemView(d: DerivedItem, position: number | null) {
  const r = d.row;
  return {
    id: r.id,
    project_id: r.project_id,
    queue_id: r.queue_id,
    call_id: r.call_id,
    call_started_at: formatMicros(r.call_started_at),
    call_ended_at: time(r.call_ended_at),
    call_op_name: r.call_op_name,
    call_trace_id: r.call_trace_id,
    display_fields: JSON.parse(r.display_fields) as string[],
    added_by: r.added_by,
    annotation_state: d.state,
    annotator_user_id: d.annotator,
    created_at: formatMicros(r.created_at),
    created_by: r.created_by,
    updated_at: formatMicros(r.updated_at),
    deleted_at: time(r.deleted_at),
    position_in_queue: position,
  };
}

/** Sorts by the known fields of `sort_by` (unknown ones ignored), then `id` ascending. */
function sortRows<T extends { id: string }>(
  rows: T[],
  sortBy: SortSpec | null | undefined,
  allowed: Set<string>,
  fallback: SortSpec,
): T[] {
  const keys = (sortBy ?? fallback).filter((s) => allowed.has(s.field));
  keys.push({ field: 'id', direction: 'asc' });
  const compare = (a: unknown, b: unknown): number => {
    if (a === b) return 0;
    if (a === null || a === undefined) return -1;
    if (b === null || b === undefined) return 1;
    return a < b ? -1 : 1;
  };
  return [...rows].sort((a, b) => {
    for (const { field, direction } of keys) {
      const c = compare((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]);
      if (c !== 0) return direction === 'asc' ? c : -c;
    }
    return 0;
  });
}

function page<T>(rows: T[], offset: number | null | undefined, limit: number | null | undefined): T[] {
  const start = offset ?? 0;
  return limit ? rows.slice(start, start + limit) : rows.slice(start);
}

/** Each item with the state of its most recently updated progress record (any annotator). */
function derive(items: AnnotationItemRow[], progress: AnnotationProgressRow[]): DerivedItem[] {
  const latest = new Map<string, AnnotationProgressRow>();
  for (const p of progress) {
    const seen = latest.get(p.item_id);
    if (
      !seen ||
      p.updated_at > seen.updated_at ||
      (p.updated_at === seen.updated_at && p.annotator_user_id > seen.annotator_user_id)
    )
      latest.set(p.item_id, p);
  }
  return items.map((row) => {
    const p = latest.get(row.id);
    return { row, state: p?.annotation_state ?? 'unstarted', annotator: p?.annotator_user_id ?? '' };
  });
}

export class AnnotationQueueService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  async create(caller: Caller, req: S.QueueCreateReq): Promise<{ id: string }> {
    await this.access.assertCanWrite(caller, req.project_id);
    const now = nowMicros();
    const id = uuidv7();
    await this.store.annotations.createQueue({
      project_id: req.project_id,
      id,
      name: req.name,
      description: req.description ?? '',
      scorer_refs: JSON.stringify(req.scorer_refs),
      created_at: now,
      created_by: caller.userId,
      updated_at: now,
      deleted_at: null,
    });
    return { id };
  }

  /** Live queues as JSON lines; default order newest first. */
  async *query(caller: Caller, req: S.QueueQueryReq): AsyncGenerator<string> {
    this.access.assertCanRead(caller, req.project_id);
    let queues = await this.store.annotations.listQueues(req.project_id);
    if (req.name != null) {
      const needle = req.name.toLowerCase();
      queues = queues.filter((q) => q.name.toLowerCase().includes(needle));
    }
    const sorted = sortRows(queues, req.sort_by, QUEUE_SORT, [{ field: 'created_at', direction: 'desc' }]);
    for (const q of page(sorted, req.offset, req.limit)) yield `${JSON.stringify(queueView(q))}\n`;
  }

  async stats(caller: Caller, req: { project_id: string; queue_ids: string[] }) {
    this.access.assertCanRead(caller, req.project_id);
    const counts = await this.store.annotations.stats(req.project_id, req.queue_ids);
    return {
      stats: req.queue_ids.map((id) => ({
        queue_id: id,
        total_items: counts.get(id)?.total ?? 0,
        completed_items: counts.get(id)?.completed ?? 0,
      })),
    };
  }

  async read(caller: Caller, projectId: string, queueId: string) {
    this.access.assertCanRead(caller, projectId);
    return { queue: queueView(await this.#liveQueue(projectId, queueId)) };
  }

  async update(caller: Caller, queueId: string, req: S.QueueUpdateReq) {
    await this.access.assertCanWrite(caller, req.project_id);
    const changes: QueueChanges = {};
    if (req.name != null) changes.name = req.name;
    if (req.description != null) changes.description = req.description;
    if (req.scorer_refs != null) changes.scorer_refs = JSON.stringify(req.scorer_refs);
    const queue = await this.store.annotations.updateQueue(req.project_id, queueId, changes, nowMicros());
    if (!queue) throw new NotFoundError(`Queue ${queueId} not found`);
    return { queue: queueView(queue) };
  }

  async delete(caller: Caller, projectId: string, queueId: string) {
    await this.access.assertCanWrite(caller, projectId);
    const queue = await this.store.annotations.deleteQueue(projectId, queueId, nowMicros());
    if (!queue) throw new NotFoundError(`Queue ${queueId} not found or already deleted`);
    return { queue: queueView(queue) };
  }

  /** Adds the named calls that exist (live) in the project and are not in the queue yet, in request order. */
  async addItems(
    caller: Caller,
    queueId: string,
    req: S.ItemsAddReq,
  ): Promise<{ added_count: number; duplicates: number }> {
    await this.access.assertCanWrite(caller, req.project_id);
    await this.#liveQueue(req.project_id, queueId);
    const wanted = [...new Set(req.call_ids)];
    const found = new Map<string, { started_at: number; ended_at: number | null; op_name: string; trace_id: string }>();
    if (wanted.length > 0) {
      const rows = this.store.calls.query({
        project_id: req.project_id,
        filter: { call_ids: wanted },
        columns: ['id', 'started_at', 'ended_at', 'op_name', 'trace_id'],
      });
      for await (const row of rows)
        found.set(row.id, {
          started_at: row.started_at!,
          ended_at: row.ended_at ?? null,
          op_name: row.op_name ?? '',
          trace_id: row.trace_id ?? '',
        });
    }
    const now = nowMicros();
    const items: AnnotationItemRow[] = wanted.flatMap((callId) => {
      const call = found.get(callId);
      if (!call) return [];
      return [
        {
          project_id: req.project_id,
          id: uuidv7(),
          queue_id: queueId,
          call_id: callId,
          call_started_at: call.started_at,
          call_ended_at: call.ended_at,
          call_op_name: call.op_name,
          call_trace_id: call.trace_id,
          display_fields: JSON.stringify(req.display_fields),
          added_by: caller.userId,
          created_at: now,
          created_by: caller.userId,
          updated_at: now,
          deleted_at: null,
        },
      ];
    });
    const { added, duplicates } = await this.store.annotations.addItems(req.project_id, queueId, items);
    // every id named was already in the queue: each mention counts, repeats included (docs/spec/otel-service-queues.md §D.3)
    const allPresent = added === 0 && items.length === wanted.length && wanted.length > 0;
    return { added_count: added, duplicates: allPresent ? req.call_ids.length : duplicates };
  }

  async queryItems(caller: Caller, queueId: string, req: S.ItemsQueryReq) {
    this.access.assertCanRead(caller, req.project_id);
    await this.#liveQueue(req.project_id, queueId);
    const f = req.filter ?? {};
    const exact = (['id', 'call_id', 'call_op_name', 'call_trace_id', 'added_by'] as const).filter((k) => f[k] != null);
    const items = (await this.#derived(req.project_id, queueId)).filter((d) => exact.every((k) => d.row[k] === f[k]));
    const sorted = sortRows(
      items.map((d) => ({ ...d.row, derived: d })),
      req.sort_by,
      ITEM_SORT,
      [{ field: 'created_at', direction: 'asc' }],
    );
    const positioned = sorted.map((r, i) => ({ derived: r.derived, position: i + 1 }));
    const states = f.annotation_states;
    const kept = states == null ? positioned : positioned.filter((p) => states.includes(p.derived.state));
    return {
      items: page(kept, req.offset, req.limit).map((p) =>
        itemView(p.derived, req.include_position === true ? p.position : null),
      ),
    };
  }

  async setProgress(caller: Caller, queueId: string, itemId: string, req: S.ProgressReq) {
    const state = req.annotation_state as AnnotationState;
    if (!STATES.includes(state))
      throw new InvalidRequestError(
        `Invalid annotation_state '${req.annotation_state}'. Must be one of: ${STATES.join(', ')}`,
      );
    await this.access.assertCanWrite(caller, req.project_id);
    await this.#liveQueue(req.project_id, queueId);
    const outcome = await this.store.annotations.setProgress(
      req.project_id,
      queueId,
      itemId,
      caller.userId,
      state,
      nowMicros(),
    );
    if (!outcome.ok) {
      if (outcome.reason === 'in_progress_after_record') {
        throw new InvalidRequestError(
          `Cannot transition to 'in_progress' when a record already exists (current state: '${outcome.from}')`,
        );
      }
      if (outcome.reason === 'invalid_transition')
        throw new InvalidRequestError(`Invalid state transition from '${outcome.from}' to '${state}'`);
      throw new InvalidRequestError(`Queue item '${itemId}' not found in queue '${queueId}'`);
    }
    const item = (await this.#derived(req.project_id, queueId)).find((d) => d.row.id === itemId);
    if (!item) throw new InvalidRequestError(`Queue item '${itemId}' not found in queue '${queueId}'`);
    return { item: itemView(item, null) };
  }

  async #derived(projectId: string, queueId: string): Promise<DerivedItem[]> {
    const [items, progress] = await Promise.all([
      this.store.annotations.listItems(projectId, queueId),
      this.store.annotations.listProgress(projectId, queueId),
    ]);
    return derive(items, progress);
  }

  async #liveQueue(projectId: string, queueId: string): Promise<AnnotationQueueRow> {
    const queue = await this.store.annotations.getQueue(projectId, queueId);
    if (!queue || queue.deleted_at !== null) throw new NotFoundError(`Queue ${queueId} not found`);
    return queue;
  }
}
