import { digestValue } from '../digest.js';
import { opDisplayName } from '../refs.js';
import { parseRef, RefParseError } from '../ref-uri.js';
import { isRecord, type EvalCall, type EvalTrial, type GenaiSpanRef, type TrialRecord } from './types.js';

/**
 * From an evaluation's calls to its trials (docs/spec/evaluations.md §4.3 steps 2–5): which
 * children are trials, which of a trial's children predicted and which scored, and the row each
 * trial belongs to.
 */

const TRIAL_OPS = new Set(['Evaluation.predict_and_score', 'Evaluation.predictAndScore']);
const ROW_REF_MARKER = '/attr/rows/id/';

/** The op's name: an op ref stripped to its name (`weave:///e/p/op/<name>:<digest>` → `<name>`). */
export function opNameOf(call: Pick<EvalCall, 'opName'>): string {
  return opDisplayName(call.opName) ?? call.opName;
}

export function isTrialCall(call: EvalCall): boolean {
  return TRIAL_OPS.has(opNameOf(call));
}

/** The object name a ref names, or null when the text is not an object or op ref. */
export function refObjectName(ref: unknown): string | null {
  if (typeof ref !== 'string') return null;
  try {
    const parsed = parseRef(ref);
    return parsed.kind === 'object' || parsed.kind === 'op' ? parsed.name : null;
  } catch (error) {
    if (error instanceof RefParseError) return null;
    throw error;
  }
}

/** A dataset-row ref names its row by digest; any other example is hashed like an object. */
export function rowDigestOf(example: unknown): string {
  if (typeof example === 'string') {
    const at = example.indexOf(ROW_REF_MARKER);
    if (at >= 0) return example.slice(at + ROW_REF_MARKER.length);
  }
  return digestValue(example ?? null).digest;
}

const weaveAttrs = (call: EvalCall): Record<string, unknown> =>
  isRecord(call.attributes.weave) ? call.attributes.weave : {};

function isScorerCall(call: EvalCall): boolean {
  if (weaveAttrs(call).score === 'true') return true;
  const meta = call.attributes._weave_eval_meta;
  if (isRecord(meta) && Boolean(meta.score)) return true;
  const name = opNameOf(call);
  return name.includes('.score') || name.includes('scorer');
}

/**
 * The key a scorer child's output goes under: the scorer object's name when the call says which
 * scorer ran, else its op name without a trailing `.score` (our choice: one key per score).
 */
function scorerKey(call: EvalCall): string {
  const fromRef = refObjectName(weaveAttrs(call).scorer);
  if (fromRef !== null) return fromRef;
  return opNameOf(call).replace(/\.score$/, '');
}

function sameJson(a: unknown, b: unknown): boolean {
  return a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

function findPredictCall(trialCall: EvalCall, children: EvalCall[]): EvalCall | null {
  for (const child of children) {
    if (isScorerCall(child)) continue;
    const name = opNameOf(child);
    if (sameJson(child.inputs.self, trialCall.inputs.model) || name.includes('predict') || name.includes('invoke'))
      return child;
  }
  return null;
}

function latencyOf(predict: EvalCall | null, output: Record<string, unknown>): number | null {
  if (predict && predict.endedAt !== null) return Math.max(0, predict.endedAt - predict.startedAt) / 1e6;
  const latency = output.model_latency;
  if (typeof latency === 'number') return latency;
  if (isRecord(latency) && typeof latency.mean === 'number') return latency.mean;
  return null;
}

/** The sum of `summary.usage[*].total_tokens`, or null when no entry has one. */
export function totalTokensOf(call: EvalCall): number | null {
  const usage = call.summary.usage;
  if (!isRecord(usage)) return null;
  let total: number | null = null;
  for (const entry of Object.values(usage)) {
    if (isRecord(entry) && typeof entry.total_tokens === 'number') total = (total ?? 0) + entry.total_tokens;
  }
  return total;
}

function spanRefsOf(calls: Array<EvalCall | null>): GenaiSpanRef[] | null {
  const seen = new Set<string>();
  const refs: GenaiSpanRef[] = [];
  for (const call of calls) {
    const list = call ? weaveAttrs(call).genai_span_ref : undefined;
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isRecord(item) || typeof item.trace_id !== 'string' || typeof item.span_id !== 'string') continue;
      const key = `${item.trace_id}\u0000${item.span_id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      refs.push({ trace_id: item.trace_id, span_id: item.span_id });
    }
  }
  return refs.length > 0 ? refs : null;
}

/**
 * The scorer children whose result `output.scores` does not hold yet (§4.3 step 4: the children only
 * add missing scores). A child is recorded when its key is a recorded score, or else when an
 * unclaimed recorded score holds its very output: a class scorer's `name` (the recorded key) need not
 * appear in its op name (`LLMAsAJudgeScorer.score` recorded as `correctness`), and without this the
 * one score would show twice, under two keys.
 */
function unrecordedScorers(recorded: Record<string, unknown>, scorers: EvalCall[]): EvalCall[] {
  const claimed = new Set<string>();
  const rest: EvalCall[] = [];
  for (const scorer of scorers) {
    const key = scorerKey(scorer);
    if (key in recorded && !claimed.has(key)) claimed.add(key);
    else rest.push(scorer);
  }
  return rest.filter((scorer) => {
    const key = Object.keys(recorded).find((k) => !claimed.has(k) && sameJson(recorded[k], scorer.output));
    if (key === undefined) return true;
    claimed.add(key);
    return false;
  });
}

function scorerCallIds(scores: Record<string, unknown>, scorers: EvalCall[]): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const key of Object.keys(scores)) {
    const wanted = key.toLowerCase();
    const match = scorers.find((call) => {
      const name = opNameOf(call).toLowerCase();
      return name.includes(wanted) || wanted.includes(name);
    });
    if (match) ids[key] = match.id;
  }
  return ids;
}

/**
 * One trial from a `predict_and_score` call and its children (started-at order). Without
 * children (`include_predict_and_score_children: false`) everything comes from the call itself.
 */
export function buildTrial(evaluationId: string, trialCall: EvalCall, children: EvalCall[] | null): TrialRecord {
  const output = isRecord(trialCall.output) ? trialCall.output : {};
  const scores: Record<string, unknown> = isRecord(output.scores) ? { ...output.scores } : {};
  const scorers = children ? children.filter(isScorerCall) : [];
  for (const scorer of unrecordedScorers(scores, scorers)) {
    const key = scorerKey(scorer);
    if (!(key in scores) && scorer.output !== undefined) scores[key] = scorer.output;
  }
  const predict = children ? findPredictCall(trialCall, children) : null;
  const usageCall = predict && totalTokensOf(predict) !== null ? predict : trialCall;
  const trial: EvalTrial = {
    predict_and_score_call_id: trialCall.id,
    predict_call_id: predict?.id ?? null,
    model_output: output.output ?? null,
    scores,
    model_latency_seconds: latencyOf(predict, output),
    total_tokens: totalTokensOf(usageCall),
    total_cost: null,
    // our choice: any child but the predict call may be a score's call, since function scorers of
    // a declarative evaluation carry no score marker and their op names need not say "score"
    scorer_call_ids: children
      ? scorerCallIds(
          scores,
          children.filter((child) => child !== predict),
        )
      : {},
    genai_span_ref: spanRefsOf([predict, trialCall]),
  };
  const example = trialCall.inputs.example;
  return { evaluationId, rowDigest: rowDigestOf(example), example, startedAt: trialCall.startedAt, usageCall, trial };
}
