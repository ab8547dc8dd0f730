import assert from 'node:assert/strict';
import { resolveCallField, type CallField } from '../../../src/domain/call-fields.js';
import type { Operation, SortKey } from '../../../src/domain/query/ast.js';
import { parseQuery, parseSort } from '../../../src/domain/query/parse.js';
import type { FeedbackRow } from '../../../src/store/feedback-types.js';
import type { CallEndPart, CallRow, CallStartPart, CallsQuery, TraceStore } from '../../../src/store/types.js';

/** Store-level call parts with full defaults (the HTTP factories are in test/helpers/factories.ts). */
export function start(
  projectId: string,
  id: string,
  overrides: Partial<Omit<CallStartPart, 'kind' | 'project_id' | 'id'>> = {},
): CallStartPart {
  return {
    kind: 'start',
    project_id: projectId,
    id,
    op_name: 'weave:///acme/demo/op/predict:abc',
    op_display_name: 'predict',
    display_name: null,
    trace_id: `trace-${id}`,
    parent_id: null,
    thread_id: null,
    turn_id: null,
    started_at: 1_700_000_000_000_000,
    attributes: '{}',
    inputs: '{}',
    otel_dump: null,
    wb_user_id: 'user-1',
    wb_run_id: null,
    wb_run_step: null,
    ...overrides,
  };
}

export function end(
  projectId: string,
  id: string,
  overrides: Partial<Omit<CallEndPart, 'kind' | 'project_id' | 'id'>> = {},
): CallEndPart {
  return {
    kind: 'end',
    project_id: projectId,
    id,
    ended_at: 1_700_000_001_000_000,
    exception: null,
    output: null,
    summary: '{}',
    wb_run_step_end: null,
    ...overrides,
  };
}

export function where(expr: unknown): Operation<CallField> {
  return parseQuery({ $expr: expr }, resolveCallField);
}

export function sort(keys: Array<{ field: string; direction: 'asc' | 'desc' }>): SortKey<CallField>[] {
  return parseSort(keys, resolveCallField);
}

/** The ids a query streams, in order. */
export async function ids(store: TraceStore, q: CallsQuery): Promise<string[]> {
  const out: string[] = [];
  for await (const row of store.calls.query(q)) out.push(row.id);
  return out;
}

/**
 * Each page (`limit`, `offset`) of `base` equals the ids of `base` without a limit cut to it: the
 * check of the index walks (latency, status, display name, tokens); returns how many pages had rows.
 */
export async function assertPagesCut(
  store: TraceStore,
  base: CallsQuery,
  pages: ReadonlyArray<readonly [number, number]>,
  what: unknown,
): Promise<number> {
  const all = await ids(store, base);
  let nonEmpty = 0;
  for (const [limit, offset] of pages) {
    const page = await ids(store, { ...base, limit, offset });
    assert.deepEqual(page, all.slice(offset, offset + limit), JSON.stringify({ ...(what as object), limit, offset }));
    if (page.length > 0) nonEmpty += 1;
  }
  return nonEmpty;
}

/** A sort's keys, as `sort` takes them. */
export type SortKeys = Array<{ field: string; direction: 'asc' | 'desc' }>;

/**
 * The sorts an index walk serves for `field`: alone both ways, and then `id` against the direction
 * (the default tie-break) and with it; `idWithAsc` adds ascending then `id` ascending too.
 */
export function walkSorts(field: string, idWithAsc = false): SortKeys[] {
  const sorts: SortKeys[] = [
    [{ field, direction: 'desc' }],
    [{ field, direction: 'asc' }],
    [
      { field, direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ],
    [
      { field, direction: 'asc' },
      { field: 'id', direction: 'desc' },
    ],
  ];
  if (idWithAsc)
    sorts.push([
      { field, direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
  return sorts;
}

/**
 * `assertPagesCut` for each sort of `sorts` under each of `filters` in the project `projectId`: the
 * index-walk tests' sweep; returns how many pages had rows.
 */
export async function assertSortedPagesCut(
  store: TraceStore,
  projectId: string,
  filters: ReadonlyArray<Partial<CallsQuery>>,
  sorts: ReadonlyArray<SortKeys>,
  pages: ReadonlyArray<readonly [number, number]>,
): Promise<number> {
  let nonEmpty = 0;
  for (const extra of filters)
    for (const keys of sorts) {
      const base: CallsQuery = { project_id: projectId, sort_by: sort(keys), ...extra };
      nonEmpty += await assertPagesCut(store, base, pages, { keys, extra });
    }
  return nonEmpty;
}

/** The rows a query streams. */
export async function rows(store: TraceStore, q: CallsQuery): Promise<CallRow[]> {
  const out: CallRow[] = [];
  for await (const row of store.calls.query(q)) out.push(row);
  return out;
}

/** Steps the call indexer until no project waits (`stepCalls` calls a step, so most take several). */
export async function indexAll(store: TraceStore, stepCalls = 7): Promise<void> {
  while ((await store.callText.step(stepCalls)).project !== null);
}

/** Whether the indexer's fill `fill` (call-indexes/entry-fills.ts, e.g. 'trace_names') is done for `project`, as the compiler is told. */
export async function fillDone(store: TraceStore, project: string, fill: string): Promise<boolean> {
  return !(await store.callText.pendingFills(project)).includes(fill);
}

/**
 * A page of `q` (offset 2, limit 5) and, with only `id` and `summary` selected, its first 3 rows are
 * those of the query without a limit cut to them: whole rows, not only the order of the ids.
 */
export async function assertPagesOfRows(store: TraceStore, q: CallsQuery): Promise<void> {
  const all = await rows(store, q);
  assert.deepEqual(await rows(store, { ...q, limit: 5, offset: 2 }), all.slice(2, 7));
  const narrow: CallsQuery = { ...q, columns: ['id', 'summary'] };
  assert.deepEqual(await rows(store, { ...narrow, limit: 3 }), (await rows(store, narrow)).slice(0, 3));
}

/** `assertPagesOfRows` with every include option, sorted by `field` both ways: an index walk's rows are whole. */
export async function assertIncludeOptionRows(store: TraceStore, projectId: string, field: string): Promise<void> {
  for (const direction of ['asc', 'desc'] as const) {
    await assertPagesOfRows(store, {
      project_id: projectId,
      sort_by: sort([{ field, direction }]),
      include_storage_size: true,
      include_total_storage_size: true,
      include_usernames: true,
    });
  }
}

/** A feedback row with every column filled; `over` replaces any of them. */
export function feedback(project_id: string, id: string, over: Partial<FeedbackRow> = {}): FeedbackRow {
  return {
    project_id,
    id,
    weave_ref: `weave:///${project_id}/call/c1`,
    wb_user_id: 'u1',
    creator: null,
    created_at: 1_000,
    feedback_type: 'note',
    payload: '{"note":"hi"}',
    annotation_ref: null,
    runnable_ref: null,
    call_ref: null,
    trigger_ref: null,
    queue_id: null,
    scorer_tags: '[]',
    scorer_tag_reasons: '{}',
    scorer_tag_confidences: '{}',
    scorer_ratings: '{}',
    scorer_rating_reasons: '{}',
    scorer_rating_confidences: '{}',
    span_agent_name: '',
    span_agent_version: '',
    span_status_code: '',
    span_conversation_id: '',
    span_trace_id: '',
    scorer_trace_id: '',
    ...over,
  };
}
