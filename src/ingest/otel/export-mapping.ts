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

export interface MappedExport {
  calls: Array<{ projectId: string; call: OtelCall }>;
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

export function mapExport(request: OtlpTraceRequest, headers: RoutingHeaders): MappedExport {
  const out: MappedExport = { calls: [], rejected: [], anyRoutable: false, spanCount: 0 };
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
      const outcome = spanToCall(span, ctx);
      if (outcome.ok) out.calls.push({ projectId: target.projectId, call: outcome.call });
      else out.rejected.push(reject(span, outcome.reason));
    }
  }
  return out;
}

/** §A.9: the `partial_success` value, null when nothing was rejected. */
export function partialSuccess(rejected: RejectedSpan[]): { rejected_spans: number; error_message: string } | null {
  if (rejected.length === 0) return null;
  const messages = rejected
    .slice(0, MAX_MESSAGES)
    .map((r) => `Rejected span (name='${r.name}' trace_id='${r.traceId}' span_id='${r.spanId}'): ${r.reason}`);
  return {
    rejected_spans: rejected.length,
    error_message: messages.join('; ') + (rejected.length > MAX_MESSAGES ? '; ...' : ''),
  };
}
