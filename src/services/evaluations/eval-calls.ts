import type { EvalCall, JsonRecord } from '../../domain/eval-results/types.js';
import { isRecord } from '../../domain/eval-results/types.js';
import { uuidv7 } from '../../domain/ids.js';
import { opDisplayName } from '../../domain/refs.js';
import { nowMicros } from '../../domain/time.js';
import { NotFoundError, RequestTooLargeError } from '../../errors/app-error.js';
import type { CallRow, CallsFilter, CallsQuery, TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import { MAX_DELETE_IDS } from '../call-service.js';
import type { V2ObjectService } from '../v2-object-service.js';

/**
 * What the call-backed evaluation APIs (docs/spec/evaluations.md §3) share: starting and ending the
 * calls they are made of, with the same parts `/call/start` and `/call/end` would store, and reading
 * calls back with their JSON parsed.
 */

export interface NewCall {
  id?: string;
  opName: string;
  traceId?: string;
  parentId: string | null;
  inputs: JsonRecord;
  attributes: JsonRecord;
  displayName?: string | null;
}

const parseObject = (text: string | null): JsonRecord => {
  const value: unknown = text === null ? null : JSON.parse(text);
  return isRecord(value) ? value : {};
};

export function toEvalCall(row: CallRow): EvalCall {
  return {
    id: row.id,
    opName: row.op_name,
    parentId: row.parent_id,
    traceId: row.trace_id,
    displayName: row.display_name,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    inputs: parseObject(row.inputs),
    output: row.output === null ? null : JSON.parse(row.output),
    attributes: parseObject(row.attributes),
    summary: parseObject(row.summary),
    wbUserId: row.wb_user_id,
  };
}

/** `attributes.weave` of a call, `{}` when absent. */
export const weaveAttributes = (call: EvalCall): JsonRecord =>
  isRecord(call.attributes.weave) ? call.attributes.weave : {};

/** Repeated query keys arrive as an array, one key as a string. */
export const listOf = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export class EvalCalls {
  constructor(
    private readonly store: TraceStore,
    private readonly v2Objects: V2ObjectService,
  ) {}

  opRef(caller: Caller, projectId: string, opName: string): Promise<string> {
    return this.v2Objects.placeholderOpRef(caller, projectId, opName);
  }

  /** Starts a call now; returns its id. */
  async start(caller: Caller, projectId: string, call: NewCall, startedAt = nowMicros()): Promise<string> {
    const id = call.id ?? uuidv7();
    await this.store.calls.write([
      {
        kind: 'start',
        project_id: projectId,
        id,
        op_name: call.opName,
        op_display_name: opDisplayName(call.opName),
        display_name: call.displayName ?? null,
        trace_id: call.traceId ?? id,
        parent_id: call.parentId,
        thread_id: null,
        turn_id: null,
        started_at: startedAt,
        attributes: JSON.stringify(call.attributes),
        inputs: JSON.stringify(call.inputs),
        otel_dump: null,
        wb_user_id: caller.userId,
        wb_run_id: null,
        wb_run_step: null,
      },
    ]);
    return id;
  }

  /** Ends a call now with its output (or an exception text); a later end replaces an earlier one. */
  async end(
    projectId: string,
    id: string,
    output: unknown,
    summary: JsonRecord = {},
    exception: string | null = null,
  ): Promise<void> {
    await this.store.calls.write([
      {
        kind: 'end',
        project_id: projectId,
        id,
        ended_at: nowMicros(),
        exception,
        output: JSON.stringify(output ?? null),
        summary: JSON.stringify(summary),
        wb_run_step_end: null,
      },
    ]);
  }

  /** Starts and ends a call at once (predictions, scores, summaries). */
  async complete(caller: Caller, projectId: string, call: NewCall, output: unknown): Promise<string> {
    const id = await this.start(caller, projectId, call);
    await this.end(projectId, id, output);
    return id;
  }

  async read(projectId: string, id: string): Promise<EvalCall | null> {
    const row = await this.store.calls.read(projectId, id);
    return row ? toEvalCall(row) : null;
  }

  async readOrThrow(projectId: string, id: string, what: string): Promise<EvalCall> {
    const call = await this.read(projectId, id);
    if (!call) throw new NotFoundError(`${what} ${id} not found`);
    return call;
  }

  async readRow(projectId: string, id: string): Promise<CallRow | null> {
    return this.store.calls.read(projectId, id);
  }

  /** Every visible call matching the query, parsed, in the store's default order. */
  async *query(q: CallsQuery): AsyncGenerator<EvalCall> {
    for await (const row of this.store.calls.query(q)) yield toEvalCall(row);
  }

  /** The visible children of the given calls, in start order; asked for in slices the filter allows. */
  async children(projectId: string, parentIds: string[]): Promise<EvalCall[]> {
    const out: EvalCall[] = [];
    for (let i = 0; i < parentIds.length; i += 500) {
      const filter: CallsFilter = { parent_ids: parentIds.slice(i, i + 500) };
      for await (const call of this.query({ project_id: projectId, filter })) out.push(call);
    }
    return out.sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Deletes calls and their descendants like `/calls/delete`, and counts the calls that really went
   * from visible to deleted (our choice: unknown ids count 0).
   */
  async deleteCounted(projectId: string, ids: string[]): Promise<number> {
    if (ids.length > MAX_DELETE_IDS) throw new RequestTooLargeError();
    if (ids.length === 0) return 0;
    const traces: string[] = [];
    for (const id of ids) {
      const row = await this.store.calls.read(projectId, id);
      if (row) traces.push(row.trace_id);
    }
    if (traces.length === 0) return 0;
    const count = async (): Promise<number> =>
      (await this.store.calls.count({ project_id: projectId, filter: { trace_ids: [...new Set(traces)] } })).count;
    const before = await count();
    await this.store.calls.deleteCascade(projectId, ids, nowMicros() - (nowMicros() % 1000));
    return before - (await count());
  }
}
