/**
 * Online monitors as the monitors page shows them (docs/monitors.md), pure: a published `Monitor`
 * value read the way the server reads it, and its scores (runnable feedback whose `trigger_ref` is
 * a version of the monitor) joined to the calls they scored.
 */
import type { Call, Feedback } from './call.js';
import { opDisplayName, parseRef } from './format.js';
import { isRecord } from './is-record.js';

export interface MonitorView {
  name: string;
  digest: string;
  versionIndex: number;
  active: boolean;
  samplingRate: number;
  /** Short op names; empty = every op. */
  ops: string[];
  /** The calls query (`{"$expr": …}`) as JSON text, or null. */
  query: string | null;
  /** Scorer names, from their refs. */
  scorers: string[];
  /** The value as published, to publish it again with `active` flipped. */
  val: Record<string, unknown>;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** A Monitor object's latest version; fields missing take the client's defaults (inactive, rate 1). */
export function monitorView(obj: {
  object_id: string;
  digest: string;
  version_index: number;
  val: unknown;
}): MonitorView {
  const val = isRecord(obj.val) ? obj.val : {};
  const filter = isRecord(val.call_filter) ? val.call_filter : {};
  const rate = typeof val.sampling_rate === 'number' && Number.isFinite(val.sampling_rate) ? val.sampling_rate : 1;
  const query = val.query ?? filter.query;
  return {
    name: obj.object_id,
    digest: obj.digest,
    versionIndex: obj.version_index,
    active: val.active === true,
    samplingRate: Math.min(1, Math.max(0, rate)),
    ops: strings(val.op_names ?? filter.op_names).map(opDisplayName),
    query: isRecord(query) && query.$expr != null ? JSON.stringify(query.$expr) : null,
    scorers: strings(val.scorers).map((s) => parseRef(s)?.name ?? s),
    val,
  };
}

/** The text every version of monitor `name` has in its refs: what its scores' `trigger_ref` contains. */
export function monitorRefStem(projectId: string, name: string): string {
  return `weave:///${projectId}/object/${encodeURIComponent(name)}:`;
}

export interface MonitorScore {
  id: string;
  callId: string | null;
  /** The scorer, from `wandb.runnable.<name>`. */
  scorer: string;
  output: unknown;
  scoredAt: string;
  /** The digest of the monitor version that scored it. */
  versionDigest: string | null;
  /** Milliseconds from the call's end to its score; null while the call is not loaded. */
  lagMs: number | null;
}

/** A feedback row as a monitor's scoring writes it. */
export type ScoreFeedback = Feedback & { trigger_ref?: string | null };

/** The id of the call a score is on, from its `weave_ref`, or null. */
export function scoredCallId(f: Pick<Feedback, 'weave_ref'>): string | null {
  const ref = parseRef(f.weave_ref);
  return ref?.kind === 'call' ? ref.digest : null;
}

/** One score per feedback row, with the lag from the scored call's end where that call is known. */
export function monitorScores(feedback: readonly ScoreFeedback[], calls: ReadonlyMap<string, Call>): MonitorScore[] {
  return feedback.map((f) => {
    const callId = scoredCallId(f);
    const call = callId ? calls.get(callId) : undefined;
    const ended = call?.ended_at ? Date.parse(call.ended_at) : NaN;
    const scored = Date.parse(f.created_at);
    const trigger = typeof f.trigger_ref === 'string' ? parseRef(f.trigger_ref) : null;
    return {
      id: f.id,
      callId,
      scorer: f.feedback_type.replace(/^wandb\.runnable\./, ''),
      output: isRecord(f.payload) ? f.payload.output : f.payload,
      scoredAt: f.created_at,
      versionDigest: trigger?.kind === 'object' ? trigger.digest : null,
      lagMs: Number.isFinite(ended) && Number.isFinite(scored) ? Math.max(0, scored - ended) : null,
    };
  });
}

/** The median of the known lags, or null. */
export function medianLag(scores: readonly MonitorScore[]): number | null {
  const lags = scores.flatMap((s) => (s.lagMs == null ? [] : [s.lagMs])).sort((a, b) => a - b);
  if (lags.length === 0) return null;
  const mid = Math.floor(lags.length / 2);
  return lags.length % 2 ? lags[mid]! : Math.round((lags[mid - 1]! + lags[mid]!) / 2);
}

export function samplingText(rate: number): string {
  return rate >= 1 ? 'every call' : `${Math.round(rate * 1000) / 10} % of calls`;
}
