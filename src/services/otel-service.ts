import { digestBytes } from '../domain/digest.js';
import { uuidv7 } from '../domain/ids.js';
import { opDisplayName } from '../domain/refs.js';
import { nowMicros } from '../domain/time.js';
import { InvalidRequestError } from '../errors/app-error.js';
import { stringifyJson } from '../ingest/otel/attribute-tree.js';
import { mapExport, partialSuccess, type AgentSpanMode, type RoutingHeaders } from '../ingest/otel/export-mapping.js';
import { decodeOtlpJson } from '../ingest/otel/otlp-json.js';
import { OtlpDecodeError, type OtlpTraceRequest } from '../ingest/otel/otlp-model.js';
import { decodeOtlpProtobuf } from '../ingest/otel/otlp-protobuf.js';
import { opObjectId, type OtelCall } from '../ingest/otel/span-call.js';
import type { CallPart, TraceStore } from '../store/types.js';
import { rollUpSpans } from '../domain/otel-rollup.js';
import { isRecord, type JsonRecord } from '../domain/eval-results/types.js';
import type { Caller } from './auth-service.js';
import type { ObjectService } from './object-service.js';
import type { ProjectAccess } from './project-access.js';

/** The decoded body of an export request, by content type (docs/spec/otel-service-queues.md §A.1). */
export type OtlpBody = { encoding: 'protobuf'; bytes: Uint8Array } | { encoding: 'json'; bytes: Uint8Array };

export interface ExportTraceResult {
  partial_success: { rejected_spans: number; error_message: string } | null;
}

/** §A.6: the source every OTel-created op points at; its digest is the same in every project. */
const PLACEHOLDER_SOURCE =
  '# Created by Heddle from an OpenTelemetry span.\n# Code capture is not available for operations ingested through OpenTelemetry.\n';
const PLACEHOLDER_BYTES = Buffer.from(PLACEHOLDER_SOURCE, 'utf8');
const PLACEHOLDER_DIGEST = digestBytes(PLACEHOLDER_BYTES);

function decode(body: OtlpBody): OtlpTraceRequest {
  try {
    return body.encoding === 'protobuf'
      ? decodeOtlpProtobuf(body.bytes)
      : decodeOtlpJson(Buffer.from(body.bytes).toString('utf8'));
  } catch (error) {
    if (error instanceof OtlpDecodeError) throw new InvalidRequestError(error.message);
    throw error;
  }
}

/** OTLP trace ingest: every span becomes one finished call (docs/spec/otel-service-queues.md §A). */
export class OtelService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly objects: ObjectService,
  ) {}

  /**
   * `agents` (docs/spec/agents.md §1): `genai` for `/otel/v1/traces` (R3), `all` for the agents
   * ingest (R1, R2). Calls and agent spans are both written before the answer (R4).
   */
  async otelExport(
    caller: Caller,
    body: OtlpBody,
    headers: RoutingHeaders,
    agents: AgentSpanMode = 'genai',
  ): Promise<ExportTraceResult> {
    const mapped = mapExport(decode(body), headers, agents);
    if (mapped.spanCount > 0 && !mapped.anyRoutable) {
      throw new InvalidRequestError(
        `No span could be routed to a project: ${mapped.rejected[0]?.reason ?? 'no routable resource'}`,
      );
    }
    const byProject = new Map<string, OtelCall[]>();
    for (const { projectId, call } of mapped.calls) {
      const list = byProject.get(projectId) ?? [];
      list.push(call);
      byProject.set(projectId, list);
    }
    const projects = new Set([...byProject.keys(), ...mapped.agentSpans.map((s) => s.project_id)]);
    // every target project is checked before anything (even a project record) is written
    for (const projectId of projects) this.access.assertCanRead(caller, projectId);
    for (const projectId of projects) await this.access.assertCanWrite(caller, projectId);
    const parts: CallPart[] = [];
    for (const [projectId, calls] of byProject) {
      await this.#rollUp(projectId, calls);
      const ops = await this.#resolveOps(caller, projectId, calls);
      for (const call of calls)
        parts.push(...otelCallParts(caller.userId, projectId, ops.get(opObjectId(call.span_name))!, call));
    }
    if (parts.length > 0) await this.store.calls.write(parts);
    for (const span of mapped.agentSpans) span.wb_user_id = caller.userId;
    await this.store.agentSpans.write(mapped.agentSpans);
    return { partial_success: partialSuccess(mapped.rejected, agents === 'all') };
  }

  /**
   * Folds each span's subtree into its summary (src/domain/otel-rollup.ts): the batch's own spans
   * and the direct children an earlier export stored.
   */
  async #rollUp(projectId: string, calls: OtelCall[]): Promise<void> {
    const withChildren = new Set(calls.map((c) => c.id));
    const stored = new Map<string, { summary: JsonRecord; exception: string | null }[]>();
    const rows = this.store.calls.query({
      project_id: projectId,
      filter: { parent_ids: [...withChildren] },
      sort_by: [],
      columns: ['parent_id', 'summary', 'exception'],
    });
    for await (const row of rows) {
      // the batch's own spans are rolled up from the batch (a re-export replaces them)
      if (row.parent_id === null || withChildren.has(row.id)) continue;
      const list = stored.get(row.parent_id) ?? [];
      list.push({ summary: parseSummary(row.summary), exception: row.exception });
      stored.set(row.parent_id, list);
    }
    const rolled = rollUpSpans(
      calls.map((c) => ({ id: c.id, parent_id: c.parent_id, exception: c.exception, summary: c.summary })),
      stored,
    );
    for (const call of calls) call.summary = (rolled.get(call.id) ?? call.summary) as OtelCall['summary'];
  }

  /** §A.6: op ref per object id; reuses the latest op version, else publishes the placeholder op. */
  async #resolveOps(caller: Caller, projectId: string, calls: OtelCall[]): Promise<Map<string, string>> {
    const refs = new Map<string, string>();
    let placeholderStored = false;
    for (const objectId of new Set(calls.map((c) => opObjectId(c.span_name)))) {
      const latest = await this.store.objects.findVersion(
        projectId,
        objectId,
        { by: 'latest' },
        { metadata_only: true },
      );
      let digest = latest !== null && latest.kind === 'op' && latest.deleted_at === null ? latest.digest : null;
      if (digest === null) {
        if (!placeholderStored) await this.#storePlaceholder(projectId);
        placeholderStored = true;
        const val = { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': PLACEHOLDER_DIGEST } };
        digest = (await this.objects.objCreate(caller, { obj: { project_id: projectId, object_id: objectId, val } }))
          .digest;
      }
      refs.set(objectId, `weave:///${projectId}/op/${objectId}:${digest}`);
    }
    return refs;
  }

  async #storePlaceholder(projectId: string): Promise<void> {
    if ((await this.store.files.find(projectId, PLACEHOLDER_DIGEST)) !== null) return;
    const uploadId = uuidv7();
    await this.store.files.stageChunk(projectId, uploadId, 0, PLACEHOLDER_BYTES);
    await this.store.files.commitUpload(projectId, uploadId, {
      digest: PLACEHOLDER_DIGEST,
      name: 'obj.py',
      size_bytes: PLACEHOLDER_BYTES.byteLength,
      chunk_count: 1,
      created_at: nowMicros(),
    });
  }
}

/** The store parts (a start and an end) of one mapped span: what an export writes (docs/spec/otel-service-queues.md §A.4). */
export function otelCallParts(userId: string, projectId: string, opName: string, call: OtelCall): CallPart[] {
  return [
    {
      kind: 'start',
      project_id: projectId,
      id: call.id,
      op_name: opName,
      op_display_name: opDisplayName(opName),
      display_name: call.display_name,
      trace_id: call.trace_id,
      parent_id: call.parent_id,
      thread_id: call.thread_id,
      turn_id: call.turn_id,
      started_at: call.started_at,
      attributes: stringifyJson(call.attributes),
      inputs: stringifyJson(call.inputs),
      otel_dump: stringifyJson(call.otel_dump),
      wb_user_id: userId,
      wb_run_id: call.wb_run_id,
      wb_run_step: call.wb_run_step,
    },
    {
      kind: 'end',
      project_id: projectId,
      id: call.id,
      ended_at: call.ended_at,
      exception: call.exception,
      output: stringifyJson(call.output),
      summary: stringifyJson(call.summary),
      wb_run_step_end: call.wb_run_step_end,
    },
  ];
}

function parseSummary(text: string | null): JsonRecord {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}
