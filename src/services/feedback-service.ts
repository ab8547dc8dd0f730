import { Ajv } from 'ajv';
import { checkFeedback, type ParsedRef } from '../domain/feedback-rules.js';
import { uuidv7 } from '../domain/ids.js';
import { parseQuery, parseSort, splitFieldPath } from '../domain/query/parse.js';
import { FEEDBACK_COLUMNS, purgeIds, resolveFeedbackField } from '../domain/record-fields.js';
import { formatMicros, nowMicros } from '../domain/time.js';
import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import type {
  FeedbackBatchCreateReq,
  FeedbackCreateReq,
  FeedbackCreateRes,
  FeedbackQueryReq,
  FeedbackReplaceReq,
  PurgeReq,
} from '../schemas/feedback.js';
import type { FeedbackRow, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { AuditLog } from './audit-service.js';
import { parseProjectId, type ProjectAccess } from './project-access.js';

/** The feedback API (docs/spec/objects.md §7.1–7.6) and feedback hydration of calls (docs/spec/calls.md §2.10). */

const JSON_COLUMNS = new Set([
  'payload',
  'scorer_tags',
  'scorer_tag_reasons',
  'scorer_tag_confidences',
  'scorer_ratings',
  'scorer_rating_reasons',
  'scorer_rating_confidences',
]);
/** The keys of a `summary.weave.feedback` item (docs/spec/calls.md §2.10). */
const HYDRATED = [
  'id',
  'feedback_type',
  'weave_ref',
  'payload',
  'creator',
  'created_at',
  'wb_user_id',
  'runnable_ref',
  'call_ref',
  'trigger_ref',
  'annotation_ref',
];

/** A column's response value: JSON columns parsed, instants as ISO text. */
function columnValue(row: FeedbackRow, column: string): unknown {
  const value = (row as unknown as Record<string, unknown>)[column];
  if (column === 'created_at') return formatMicros(value as number);
  if (JSON_COLUMNS.has(column)) return JSON.parse(value as string);
  return value ?? null;
}

export function feedbackItem(row: FeedbackRow, columns: readonly string[] = FEEDBACK_COLUMNS): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column] = columnValue(row, column);
  return out;
}

/** `payload.a.b` of a row as §7.4 renders it: strings as is, other JSON compact, missing ''. */
function renderPath(row: FeedbackRow, path: string): string {
  const [head, ...rest] = splitFieldPath(path);
  let value: unknown = columnValue(row, head);
  for (const key of rest) {
    if (value === null || typeof value !== 'object') return '';
    value = Array.isArray(value) ? value[Number(key)] : (value as Record<string, unknown>)[key];
  }
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export class FeedbackService {
  readonly #ajv = new Ajv({ strict: false, allErrors: false });

  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly audit: AuditLog,
  ) {}

  /** Validates one request (§7.2) and builds its row; nothing is stored. */
  async #prepare(caller: Caller, req: FeedbackCreateReq, createdAt: number): Promise<FeedbackRow> {
    const { payload, annotationSpec } = checkFeedback(req);
    if (req.queue_id != null) await this.#checkQueue(req.project_id, req.queue_id);
    if (annotationSpec) await this.#checkAnnotation(annotationSpec, payload.value);
    const json = (value: unknown, fallback: unknown): string => JSON.stringify(value ?? fallback);
    return {
      project_id: req.project_id,
      id: req.id ?? uuidv7(),
      weave_ref: req.weave_ref,
      wb_user_id: caller.userId,
      creator: req.creator ?? null,
      created_at: createdAt,
      feedback_type: req.feedback_type,
      payload: JSON.stringify(payload),
      annotation_ref: req.annotation_ref ?? null,
      runnable_ref: req.runnable_ref ?? null,
      call_ref: req.call_ref ?? null,
      trigger_ref: req.trigger_ref ?? null,
      queue_id: req.queue_id ?? null,
      scorer_tags: json(req.scorer_tags, []),
      scorer_tag_reasons: json(req.scorer_tag_reasons, {}),
      scorer_tag_confidences: json(req.scorer_tag_confidences, {}),
      scorer_ratings: json(req.scorer_ratings, {}),
      scorer_rating_reasons: json(req.scorer_rating_reasons, {}),
      scorer_rating_confidences: json(req.scorer_rating_confidences, {}),
      span_agent_name: req.span_agent_name ?? '',
      span_agent_version: req.span_agent_version ?? '',
      span_status_code: req.span_status_code ?? 'UNSET',
      span_conversation_id: req.span_conversation_id ?? '',
      span_trace_id: req.span_trace_id ?? '',
      scorer_trace_id: req.scorer_trace_id ?? '',
    };
  }

  /**
   * §7.1: `queue_id` tags a judgement with the annotation queue it was made in, so it must name a
   * queue of the project; our choice: a deleted queue counts as missing, as its read is a 404
   * (docs/spec/otel-service-queues.md).
   */
  async #checkQueue(projectId: string, queueId: string): Promise<void> {
    const queue = await this.store.annotations.getQueue(projectId, queueId);
    if (!queue || queue.deleted_at !== null)
      throw new ObjectInvalidRequestError(`Annotation queue ${queueId} not found in project ${projectId}`);
  }

  /** §7.2: the spec must be a live AnnotationSpec and `value` must satisfy its `field_schema`. */
  async #checkAnnotation(ref: ParsedRef, value: unknown): Promise<void> {
    const version = await this.store.objects.findVersion(ref.projectId, ref.name, { by: 'digest', digest: ref.digest });
    if (
      !version ||
      version.deleted_at !== null ||
      version.digest !== ref.digest ||
      version.base_object_class !== 'AnnotationSpec'
    ) {
      throw new ObjectInvalidRequestError(`annotation_ref does not name an AnnotationSpec: ${ref.name}:${ref.digest}`);
    }
    const spec = JSON.parse(version.val) as { field_schema?: unknown };
    if (spec.field_schema === null || typeof spec.field_schema !== 'object') return;
    let valid: boolean;
    try {
      valid = this.#ajv.validate(spec.field_schema as object, value) as boolean;
    } catch {
      throw new ObjectInvalidRequestError('The AnnotationSpec field_schema is not a valid JSON Schema');
    }
    if (!valid)
      throw new ObjectInvalidRequestError(
        `Annotation value does not match the AnnotationSpec: ${this.#ajv.errorsText()}`,
      );
  }

  #response(row: FeedbackRow): FeedbackCreateRes {
    return {
      id: row.id,
      created_at: formatMicros(row.created_at),
      wb_user_id: row.wb_user_id,
      payload: JSON.parse(row.payload) as Record<string, unknown>,
    };
  }

  async create(caller: Caller, req: FeedbackCreateReq): Promise<FeedbackCreateRes> {
    await this.access.assertCanWrite(caller, req.project_id);
    const row = await this.#prepare(caller, req, nowMicros());
    await this.store.feedback.insert([row]);
    return this.#response(row);
  }

  /** §7.3: every item is validated before anything is stored. */
  async batchCreate(caller: Caller, req: FeedbackBatchCreateReq): Promise<{ res: FeedbackCreateRes[] }> {
    for (const projectId of new Set(req.batch.map((item) => item.project_id)))
      await this.access.assertCanWrite(caller, projectId);
    const now = nowMicros();
    const rows: FeedbackRow[] = [];
    for (const item of req.batch) rows.push(await this.#prepare(caller, item, now));
    await this.store.feedback.insert(rows);
    return { res: rows.map((row) => this.#response(row)) };
  }

  /** §7.5: validate the replacement, then purge the old row and insert the new one atomically. */
  async replace(caller: Caller, req: FeedbackReplaceReq): Promise<FeedbackCreateRes> {
    await this.access.assertCanWrite(caller, req.project_id);
    const { feedback_id: oldId, ...create } = req;
    const row = await this.#prepare(caller, create, nowMicros());
    await this.store.feedback.replace(req.project_id, oldId, row);
    return this.#response(row);
  }

  async purge(caller: Caller, req: PurgeReq): Promise<Record<string, never>> {
    await this.access.assertCanWrite(caller, req.project_id);
    const ids = purgeIds(req.query, false);
    if (ids === null)
      throw new ObjectInvalidRequestError('Can only purge feedback by specifying one or more feedback ids');
    await this.store.feedback.purge(req.project_id, ids);
    await this.audit.record(caller, parseProjectId(req.project_id).entity, 'feedback.purged', req.project_id, { ids });
    return {};
  }

  async query(
    caller: Caller,
    req: FeedbackQueryReq,
  ): Promise<{ result: Record<string, unknown>[]; total_count: number }> {
    this.access.assertCanRead(caller, req.project_id);
    if (req.limit != null && req.limit < 0) throw new ObjectInvalidRequestError('limit must not be negative');
    if (req.offset != null && req.offset < 0) throw new ObjectInvalidRequestError('offset must not be negative');
    const fields = req.fields ?? null;
    for (const field of fields ?? []) if (field !== 'count(*)') resolveFeedbackField(field);
    const q = {
      project_id: req.project_id,
      where: req.query ? parseQuery(req.query, resolveFeedbackField) : null,
      sort_by: req.sort_by ? parseSort(req.sort_by, resolveFeedbackField) : null,
      limit: req.limit == null ? null : Math.min(req.limit, Number.MAX_SAFE_INTEGER),
      offset: req.offset == null ? null : Math.min(req.offset, Number.MAX_SAFE_INTEGER),
    };
    const total = await this.store.feedback.count(q);
    if (fields?.includes('count(*)')) return { result: [{ 'count(*)': total }], total_count: total };
    const rows = await this.store.feedback.query(q);
    const result = rows.map((row) => {
      if (fields === null) return feedbackItem(row);
      const out: Record<string, unknown> = {};
      for (const field of fields) out[field] = field.includes('.') ? renderPath(row, field) : columnValue(row, field);
      return out;
    });
    return { result, total_count: total };
  }

  /**
   * `summary.weave.feedback` per call (docs/spec/calls.md §2.10): every call id maps to its list, oldest
   * first, possibly empty. Looked up in chunks so any number of calls works.
   */
  async forCalls(projectId: string, callIds: readonly string[]): Promise<Map<string, Record<string, unknown>[]>> {
    const out = new Map<string, Record<string, unknown>[]>(callIds.map((id) => [id, []]));
    const prefix = `weave:///${projectId}/call/`;
    const ids = [...out.keys()];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.store.feedback.forRefs(
        projectId,
        ids.slice(i, i + 500).map((id) => prefix + id),
      );
      for (const row of rows) out.get(row.weave_ref.slice(prefix.length))?.push(feedbackItem(row, HYDRATED));
    }
    return out;
  }
}
