import type { AgentSpanRecord } from '../../store/agent-types.js';
import { hasGenAiKey, spanToAgentSpan } from './agent-span.js';
import { attributeTree, lookup, PathConflictError } from './attribute-tree.js';
import type { OtelJsonObject, OtlpResourceSpans, OtlpSpan, OtlpTraceRequest } from './otlp-model.js';
import { spanToCall, type OtelCall } from './span-call.js';

/** A whole export request → calls per project and rejected spans (docs/spec/otel-service-queues.md §A.2, §A.9); no IO. */

export interface RoutingHeaders {
  /** Legacy `project_id` header (§A.2 rule 2). */
  projectId: string | null;
  /** `wb_run_id` header: the run of every span of every group. */
  wbRunId: string | null;
}

export interface RejectedSpan {
  name: string;
  traceId: string;
  spanId: string;
  reason: string;
}

/**
 * Which spans also become agent spans (docs/spec/agents.md §1): `none`; `genai` (R3, `/otel/v1/traces`:
 * spans with a `gen_ai.*` or `weave.*` attribute); `all` (R1/R2, the agents ingest: every span, and
 * a span with `weave.parent_call.id` is not made a call).
 */
export type AgentSpanMode = 'none' | 'genai' | 'all';

export interface MappedExport {
  calls: Array<{ projectId: string; call: OtelCall }>;
  /** Agent spans, `wb_user_id` still empty. */
  agentSpans: AgentSpanRecord[];
  rejected: RejectedSpan[];
  /** Whether any span sat in a routable group (§A.2: otherwise a non-empty request is a 400). */
  anyRoutable: boolean;
  spanCount: number;
}

const MAX_MESSAGES = 20;

function route(resourceTree: OtelJsonObject, headers: RoutingHeaders): { projectId: string } | { reason: string } {
  const entity = lookup(resourceTree, 'wandb.entity');
  const project = lookup(resourceTree, 'wandb.project');
  if (typeof entity === 'string' && entity !== '' && typeof project === 'string' && project !== '')
    return { projectId: `${entity}/${project}` };
  if (headers.projectId !== null && headers.projectId !== '') return { projectId: headers.projectId };
  return {
    reason:
      'no project: the resource has no string attributes wandb.entity and wandb.project (missing: ' +
      ['wandb.entity', 'wandb.project']
        .filter((k) => typeof lookup(resourceTree, k) !== 'string' || lookup(resourceTree, k) === '')
        .join(', ') +
      ') and the request has no project_id header',
  };
}

function spansOf(group: OtlpResourceSpans): OtlpSpan[] {
  return group.scopeSpans.flatMap((scope) => scope.spans);
}

function reject(span: OtlpSpan, reason: string): RejectedSpan {
  return { name: span.name, traceId: span.traceId, spanId: span.spanId, reason };
}

export function mapExport(
  request: OtlpTraceRequest,
  headers: RoutingHeaders,
  agents: AgentSpanMode = 'none',
): MappedExport {
  const out: MappedExport = { calls: [], agentSpans: [], rejected: [], anyRoutable: false, spanCount: 0 };
  for (const group of request.resourceSpans) {
    const spans = spansOf(group);
    out.spanCount += spans.length;
    let resourceTree: OtelJsonObject;
    try {
      resourceTree = attributeTree(group.resourceAttributes);
    } catch (error) {
      if (!(error instanceof PathConflictError)) throw error;
      out.rejected.push(...spans.map((span) => reject(span, `resource: ${error.message}`)));
      continue;
    }
    const target = route(resourceTree, headers);
    if ('reason' in target) {
      out.rejected.push(...spans.map((span) => reject(span, target.reason)));
      continue;
    }
    if (spans.length > 0) out.anyRoutable = true;
    const ctx = {
      projectId: target.projectId,
      resourceTree,
      resourceDroppedAttributesCount: group.resourceDroppedAttributesCount,
      wbRunId: headers.wbRunId,
    };
    for (const span of spans) {
      if (agents === 'all') {
        mapBoth(span, ctx, out);
        continue;
      }
      const outcome = spanToCall(span, ctx);
      if (outcome.ok) out.calls.push({ projectId: target.projectId, call: outcome.call });
      else out.rejected.push(reject(span, outcome.reason));
      if (outcome.ok && agents === 'genai' && hasGenAiKey(span)) {
        // R3: the call stands; a span the agent decoder cannot read is only not an agent span
        const agent = spanToAgentSpan(span, ctx);
        if (agent.ok) out.agentSpans.push(agent.span);
      }
    }
  }
  return out;
}

/** The agents ingest (§1 R1, R2, R4): one verdict for both views, the agent decoder's messages (§2.1). */
function mapBoth(span: OtlpSpan, ctx: Parameters<typeof spanToCall>[1], out: MappedExport): void {
  const agent = spanToAgentSpan(span, ctx);
  if (!agent.ok) {
    out.rejected.push(reject(span, agent.reason));
    return;
  }
  const call = spanToCall(span, ctx);
  if (!call.ok) {
    out.rejected.push(reject(span, call.reason));
    return;
  }
  out.agentSpans.push(agent.span);
  if (agent.span.parent_call_id === '') out.calls.push({ projectId: ctx.projectId, call: call.call });
}

/** §A.9: the `partial_success` value, null when nothing was rejected. */
export function partialSuccess(
  rejected: RejectedSpan[],
  bare = false,
): { rejected_spans: number; error_message: string } | null {
  if (rejected.length === 0) return null;
  // docs/spec/agents.md §2.1: the agents ingest gives the bare reasons
  const messages = rejected
    .slice(0, MAX_MESSAGES)
    .map((r) =>
      bare ? r.reason : `Rejected span (name='${r.name}' trace_id='${r.traceId}' span_id='${r.spanId}'): ${r.reason}`,
    );
  return {
    rejected_spans: rejected.length,
    error_message: messages.join('; ') + (rejected.length > MAX_MESSAGES ? '; ...' : ''),
  };
}
