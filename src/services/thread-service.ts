import type { CallField } from '../domain/call-fields.js';
import { percentile } from '../domain/metric-stats.js';
import type { Operation } from '../domain/query/ast.js';
import { formatMicros, toMicros } from '../domain/time.js';
import { InvalidRequestError } from '../errors/app-error.js';
import type { ThreadSchema, ThreadsQueryReq } from '../schemas/threads.js';
import type { CallRow, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/** Fields `/threads/stream_query` can sort by (docs/spec/calls.md §4.12). */
export const THREAD_SORT_FIELDS = [
  'thread_id',
  'turn_count',
  'start_time',
  'last_updated',
  'p50_turn_duration_ms',
  'p99_turn_duration_ms',
] as const;
type ThreadSortField = (typeof THREAD_SORT_FIELDS)[number];

interface ThreadSortKey {
  field: ThreadSortField;
  direction: 'asc' | 'desc';
}

/** Ids per `IN (…)` list sent to the store. */
const ID_CHUNK = 1000;

const column = (name: 'id' | 'turn_id' | 'thread_id'): { kind: 'field'; field: CallField } => ({
  kind: 'field',
  field: { kind: 'column', name, type: 'string' },
});

/** Turn calls (`id == turn_id`, §2.7) of a non-empty thread; a NULL thread fails the `<> ''` test too. */
const TURN_CALLS: Operation<CallField> = {
  kind: 'and',
  args: [
    { kind: 'compare', op: 'eq', left: column('id'), right: column('turn_id') },
    {
      kind: 'not',
      arg: { kind: 'compare', op: 'eq', left: column('thread_id'), right: { kind: 'literal', value: '' } },
    },
  ],
};

/** One thread's turns, folded as they stream in. */
class ThreadTurns {
  turnCount = 0;
  startTime = Infinity;
  firstTurnId: string | null = null;
  lastUpdated: number | null = null;
  lastTurnId: string | null = null;
  readonly durations: number[] = [];

  constructor(readonly threadId: string) {}

  add(row: CallRow): void {
    this.turnCount += 1;
    // ties go to the smaller id for the first turn and the larger id for the last, so results are stable
    if (row.started_at < this.startTime || (row.started_at === this.startTime && row.id < this.firstTurnId!)) {
      this.startTime = row.started_at;
      this.firstTurnId = row.id;
    }
    if (row.ended_at == null) return;
    if (
      this.lastUpdated === null ||
      row.ended_at > this.lastUpdated ||
      (row.ended_at === this.lastUpdated && row.id > this.lastTurnId!)
    ) {
      this.lastUpdated = row.ended_at;
      this.lastTurnId = row.id;
    }
    this.durations.push(Math.floor((row.ended_at - row.started_at) / 1000));
  }
}

interface ThreadView {
  thread: ThreadSchema;
  start: number;
  end: number;
}

function toView(t: ThreadTurns): ThreadView {
  const sorted = [...t.durations].sort((a, b) => a - b);
  return {
    start: t.startTime,
    end: t.lastUpdated!,
    thread: {
      thread_id: t.threadId,
      turn_count: t.turnCount,
      start_time: formatMicros(t.startTime),
      last_updated: formatMicros(t.lastUpdated!),
      first_turn_id: t.firstTurnId,
      last_turn_id: t.lastTurnId,
      p50_turn_duration_ms: percentile(sorted, 50),
      p99_turn_duration_ms: percentile(sorted, 99),
    },
  };
}

function sortValue(view: ThreadView, field: ThreadSortField): string | number | null {
  if (field === 'start_time') return view.start;
  if (field === 'last_updated') return view.end;
  return view.thread[field];
}

/** Compares by the keys in order (nulls last in both directions), then by `thread_id` ascending (our choice, §4.12). */
function compareThreads(keys: readonly ThreadSortKey[]): (a: ThreadView, b: ThreadView) => number {
  return (a, b) => {
    for (const { field, direction } of keys) {
      const x = sortValue(a, field);
      const y = sortValue(b, field);
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const order = x < y ? -1 : 1;
      return direction === 'asc' ? order : -order;
    }
    return a.thread.thread_id < b.thread.thread_id ? -1 : a.thread.thread_id > b.thread.thread_id ? 1 : 0;
  };
}

function checkSort(sortBy: ThreadsQueryReq['sort_by']): ThreadSortKey[] {
  if (sortBy == null) return [{ field: 'last_updated', direction: 'desc' }];
  return sortBy.map(({ field, direction }) => {
    if (!(THREAD_SORT_FIELDS as readonly string[]).includes(field))
      throw new InvalidRequestError(`Unsupported sort field: ${field}`);
    return { field: field as ThreadSortField, direction };
  });
}

/** A filter instant in µs; toMicros refuses instants outside years 1–9999 (a Unix-seconds number may be anything). */
function instant(value: string | number, name: string): number {
  const micros = toMicros(value);
  if (micros === null) throw new InvalidRequestError(`${name} must be a date between the years 1 and 9999`);
  return micros;
}

function checkPaging(limit: number | null | undefined, offset: number | null | undefined): void {
  if (limit != null && limit < 0) throw new InvalidRequestError('limit must not be negative');
  if (offset != null && offset < 0) throw new InvalidRequestError('offset must not be negative');
}

/** `/threads/stream_query`: per-thread statistics over turn calls (docs/spec/calls.md §4.12). */
export class ThreadService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  /** Validates, aggregates, sorts and pages; returns the JSON lines. Errors surface before the first line. */
  async threadsQueryStream(caller: Caller, req: ThreadsQueryReq): Promise<AsyncIterable<string>> {
    this.access.assertCanRead(caller, req.project_id);
    checkPaging(req.limit, req.offset);
    const keys = checkSort(req.sort_by);
    const threads = await this.#collect(req);
    const views = [...threads.values()].filter((t) => t.lastUpdated !== null).map(toView);
    views.sort(compareThreads(keys));
    const offset = req.offset ?? 0;
    const page = views.slice(offset, req.limit ? offset + req.limit : undefined);
    return (async function* lines() {
      for (const view of page) yield `${JSON.stringify(view.thread)}\n`;
    })();
  }

  /** Streams the visible turn calls in range (`after < started_at < before`) and folds them per thread. */
  async #collect(req: ThreadsQueryReq): Promise<Map<string, ThreadTurns>> {
    const filter = req.filter ?? {};
    const after = filter.after_datetime == null ? null : instant(filter.after_datetime, 'after_datetime') + 1;
    const before = filter.before_datetime == null ? null : instant(filter.before_datetime, 'before_datetime');
    const ids = filter.thread_ids && filter.thread_ids.length > 0 ? [...new Set(filter.thread_ids)] : null;
    const groups: Array<string[] | null> = [];
    if (ids === null) groups.push(null);
    else for (let i = 0; i < ids.length; i += ID_CHUNK) groups.push(ids.slice(i, i + ID_CHUNK));
    const threads = new Map<string, ThreadTurns>();
    for (const group of groups) {
      const rows = this.store.calls.query({
        project_id: req.project_id,
        filter: group ? { thread_ids: group } : null,
        where: TURN_CALLS,
        sort_by: [],
        columns: ['thread_id', 'turn_id', 'ended_at'],
        started_from: after,
        started_before: before,
      });
      for await (const row of rows) {
        if (!row.thread_id) continue;
        let turns = threads.get(row.thread_id);
        if (!turns) {
          turns = new ThreadTurns(row.thread_id);
          threads.set(row.thread_id, turns);
        }
        turns.add(row);
      }
    }
    return threads;
  }
}
