import { uuidv7 } from '../domain/ids.js';
import { findMalformedRef, opDisplayName } from '../domain/refs.js';
import { nowMicros, toMicros } from '../domain/time.js';
import { InvalidRequestError, RequestTooLargeError, RequestValidationError } from '../errors/app-error.js';
import type {
  CallEndReq,
  CallStartReq,
  CallUpdateReq,
  CallsDeleteReq,
  EndedCallSchemaForInsert,
  StartedCallSchemaForInsert,
} from '../schemas/calls.js';
import type { CompleteCallSchemaForInsert } from '../schemas/calls-v2.js';
import type { CallEndPart, CallPart, CallStartPart, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { AuditLog } from './audit-service.js';
import { parseProjectId, type ProjectAccess } from './project-access.js';

/** Most ids one `/calls/delete` may name (docs/spec/calls.md §4.6). */
export const MAX_DELETE_IDS = 1000;

export interface BatchItemValidator {
  /** Validates one batch item's `req` as a start or end request; returns 422 details on failure. */
  (kind: 'start' | 'end', req: unknown, loc: string[]): void;
}

function requireMicros(value: string | number, loc: string[]): number {
  const micros = toMicros(value);
  if (micros === null)
    throw new RequestValidationError([{ loc, msg: 'Input should be a valid datetime', type: 'datetime_parsing' }]);
  return micros;
}

function assertRefsWellFormed(value: unknown, what: string): void {
  const bad = findMalformedRef(value);
  if (bad !== undefined) throw new InvalidRequestError(`Invalid ref in ${what}: ${bad}`);
}

/** The project named by a `/v2/{entity}/{project}/…` route must be the one in the body. */
export function assertSameProject(routeProject: string, bodyProject: string, loc: string[]): void {
  if (routeProject !== bodyProject) {
    throw new InvalidRequestError(
      `${loc.slice(1).join('.')} "${bodyProject}" does not match the project of the route "${routeProject}"`,
    );
  }
}

/** Writes of the calls API: start, end, batches, renames and deletes (docs/spec/calls.md §3–4). */
export class CallWriteService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly audit: AuditLog,
  ) {}

  async callStart(caller: Caller, req: CallStartReq): Promise<{ id: string; trace_id: string }> {
    const part = this.#startPart(caller, req.start, ['body', 'start']);
    await this.access.assertCanWrite(caller, part.project_id);
    await this.store.calls.write([part]);
    return { id: part.id, trace_id: part.trace_id };
  }

  async callEnd(caller: Caller, req: CallEndReq): Promise<Record<string, never>> {
    const part = this.#endPart(req.end, ['body', 'end']);
    await this.access.assertCanWrite(caller, part.project_id);
    await this.store.calls.write([part]);
    return {};
  }

  /**
   * Validates every item first, then writes all of them in one commit; nothing is written when
   * any item is rejected (our choice, docs/spec/calls.md §4.3).
   */
  async callUpsertBatch(
    caller: Caller,
    batch: Array<{ mode?: string; req: Record<string, unknown> }>,
    validate: BatchItemValidator,
  ): Promise<{ res: Array<{ id: string; trace_id: string } | Record<string, never>> }> {
    const parts: CallPart[] = [];
    const res: Array<{ id: string; trace_id: string } | Record<string, never>> = [];
    batch.forEach((item, i) => {
      const loc = ['body', 'batch', String(i), 'req'];
      const shape = 'start' in item.req ? 'start' : 'end' in item.req ? 'end' : null;
      if (item.mode !== undefined && item.mode !== 'start' && item.mode !== 'end')
        throw new InvalidRequestError('Invalid mode');
      const kind = shape ?? (item.mode as 'start' | 'end' | undefined) ?? 'start';
      if (item.mode !== undefined && item.mode !== kind)
        throw new InvalidRequestError(`Batch item ${i}: mode "${item.mode}" does not match its request`);
      validate(kind, item.req, loc);
      if (kind === 'start') {
        const part = this.#startPart(caller, (item.req as CallStartReq).start, [...loc, 'start']);
        parts.push(part);
        res.push({ id: part.id, trace_id: part.trace_id });
      } else {
        parts.push(this.#endPart((item.req as CallEndReq).end, [...loc, 'end']));
        res.push({});
      }
    });
    for (const projectId of new Set(parts.map((p) => p.project_id)))
      await this.access.assertCanWrite(caller, projectId);
    if (parts.length > 0) await this.store.calls.write(parts);
    return { res };
  }

  /**
   * Finished calls in one batch (the Python client's default write path): each item writes its
   * start and end parts together. Every item must belong to the project of the route.
   */
  async callsComplete(
    caller: Caller,
    projectId: string,
    batch: CompleteCallSchemaForInsert[],
  ): Promise<Record<string, never>> {
    const parts: CallPart[] = [];
    batch.forEach((call, i) => {
      assertSameProject(projectId, call.project_id, ['body', 'batch', String(i), 'project_id']);
      const loc = ['body', 'batch', String(i)];
      const start = this.#startPart(caller, call, loc);
      parts.push(start, this.#endPart({ ...call, id: start.id }, loc));
    });
    await this.access.assertCanWrite(caller, projectId);
    if (parts.length > 0) await this.store.calls.write(parts);
    return {};
  }

  async callUpdate(caller: Caller, req: CallUpdateReq): Promise<Record<string, never>> {
    if (req.display_name == null) throw new InvalidRequestError('One of [display_name] is required for call update');
    await this.access.assertCanWrite(caller, req.project_id);
    await this.store.calls.write([
      { kind: 'update', project_id: req.project_id, id: req.call_id, display_name: req.display_name },
    ]);
    return {};
  }

  async callsDelete(caller: Caller, req: CallsDeleteReq): Promise<{ num_deleted: number }> {
    if (req.call_ids.length > MAX_DELETE_IDS) throw new RequestTooLargeError();
    await this.access.assertCanWrite(caller, req.project_id);
    if (req.call_ids.length === 0) return { num_deleted: 0 };
    const numDeleted = await this.store.calls.deleteCascade(
      req.project_id,
      req.call_ids,
      nowMicros() - (nowMicros() % 1000),
    );
    // docs/spec/agents.md §1 R6: gone from the agents views too
    await this.store.agentSpans.deleteBySpanIds(req.project_id, req.call_ids);
    await this.audit.record(caller, parseProjectId(req.project_id).entity, 'calls.deleted', req.project_id, {
      call_ids: req.call_ids,
      num_deleted: numDeleted,
    });
    return { num_deleted: numDeleted };
  }

  #startPart(caller: Caller, start: StartedCallSchemaForInsert, loc: string[]): CallStartPart {
    assertRefsWellFormed(start.inputs, 'inputs');
    const id = start.id ?? uuidv7();
    return {
      kind: 'start',
      project_id: start.project_id,
      id,
      op_name: start.op_name,
      op_display_name: opDisplayName(start.op_name),
      display_name: start.display_name ?? null,
      trace_id: start.trace_id ?? uuidv7(),
      parent_id: start.parent_id ?? null,
      thread_id: start.thread_id ?? null,
      turn_id: start.turn_id ?? null,
      started_at: requireMicros(start.started_at, [...loc, 'started_at']),
      attributes: JSON.stringify(start.attributes),
      inputs: JSON.stringify(start.inputs),
      otel_dump: start.otel_dump == null ? null : JSON.stringify(start.otel_dump),
      wb_user_id: caller.userId,
      wb_run_id: start.wb_run_id ?? null,
      wb_run_step: start.wb_run_step ?? null,
    };
  }

  #endPart(end: EndedCallSchemaForInsert, loc: string[]): CallEndPart {
    assertRefsWellFormed(end.output, 'output');
    return {
      kind: 'end',
      project_id: end.project_id,
      id: end.id,
      ended_at: requireMicros(end.ended_at, [...loc, 'ended_at']),
      exception: end.exception ?? null,
      output: end.output === undefined ? null : JSON.stringify(end.output),
      summary: JSON.stringify(end.summary),
      // a JSON body's value, so the text above is its exact JSON (types.ts CallEndPart)
      parsed_summary: end.summary,
      wb_run_step_end: end.wb_run_step_end ?? null,
    };
  }
}
