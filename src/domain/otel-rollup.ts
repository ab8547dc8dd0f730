import { Rollup } from './server-eval/rollup.js';
import { isRecord, type JsonRecord } from './eval-results/types.js';

/**
 * What the Python client folds into a call's summary when it ends (docs/spec/evaluations.md §6.2),
 * done for OTLP spans at ingest: a span's `summary.usage` and `summary.status_counts` cover its
 * subtree, so a trace root carries the trace's usage (counted once from the root, as for client
 * traces) and a root whose descendant failed reads `descendant_error`. OTLP sends no roll-up of its
 * own; children stored by an earlier export are folded in from their stored (already rolled-up)
 * summaries. A child exported after its parent is not folded in (the parent is not rewritten).
 */
export interface RollupSpan {
  id: string;
  parent_id: string | null;
  exception: string | null;
  summary: JsonRecord;
}

/** Stored direct children of the batch's spans, by parent id: their summaries as stored. */
export type StoredChildren = ReadonlyMap<string, readonly { summary: JsonRecord; exception: string | null }[]>;

function ofSummary(summary: JsonRecord): Rollup {
  const r = new Rollup();
  const counts = isRecord(summary.status_counts) ? summary.status_counts : null;
  if (counts) {
    r.success = typeof counts.success === 'number' ? counts.success : 0;
    r.error = typeof counts.error === 'number' ? counts.error : 0;
  }
  if (isRecord(summary.usage)) for (const [model, usage] of Object.entries(summary.usage)) r.addUsage(model, usage);
  return r;
}

/** A leaf's summary with its own status counted, as the client's roll-up counts every call. */
function withCounts(summary: JsonRecord, exception: string | null): JsonRecord {
  if (isRecord(summary.status_counts)) return summary;
  return { ...summary, status_counts: { success: exception === null ? 1 : 0, error: exception === null ? 0 : 1 } };
}

/** The rolled-up summary of every span of a batch, by span id (other summary keys kept). */
export function rollUpSpans(spans: readonly RollupSpan[], stored: StoredChildren): Map<string, JsonRecord> {
  const byId = new Map(spans.map((s) => [s.id, s]));
  const children = new Map<string, RollupSpan[]>();
  for (const s of spans) {
    if (s.parent_id === null || !byId.has(s.parent_id)) continue;
    const list = children.get(s.parent_id) ?? [];
    list.push(s);
    children.set(s.parent_id, list);
  }
  const done = new Map<string, JsonRecord>();
  const open = new Set<string>();
  const visit = (span: RollupSpan): JsonRecord => {
    const hit = done.get(span.id);
    if (hit) return hit;
    const kids = (children.get(span.id) ?? []).filter((c) => !open.has(c.id) && c.id !== span.id);
    const storedKids = stored.get(span.id) ?? [];
    // a leaf keeps its summary as mapped (§A.7): only a parent gains counts
    if (kids.length === 0 && storedKids.length === 0) {
      done.set(span.id, span.summary);
      return span.summary;
    }
    open.add(span.id);
    const r = new Rollup();
    if (isRecord(span.summary.usage))
      for (const [model, usage] of Object.entries(span.summary.usage)) r.addUsage(model, usage);
    for (const child of storedKids) r.add(ofSummary(withCounts(child.summary, child.exception)));
    // a cycle of parent ids (a hostile export) is cut where it closes
    for (const child of kids) r.add(ofSummary(withCounts(visit(child), child.exception)));
    open.delete(span.id);
    const summary = { ...span.summary, ...r.close(span.exception !== null) };
    done.set(span.id, summary);
    return summary;
  };
  for (const s of spans) visit(s);
  return done;
}
