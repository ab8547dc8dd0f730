/**
 * The evaluations list's filters and order, kept in the URL (`?q=&evaluation=&model=&kind=&status=
 * &sort=&dir=`), pure: runs filtered by text, evaluation, model, kind and status, and sorted by a
 * column or by one of their summary metrics.
 */
import type { Call } from './call.js';
import { evalKind, refName, summaryMetrics, type EvalKind } from './evals.js';
import { optionalString } from './search.js';

export type RunState = 'success' | 'error' | 'running';

export interface EvalListSearch {
  q?: string;
  evaluation?: string;
  model?: string;
  kind?: EvalKind;
  status?: RunState;
  /** `started` (default), `run`, `evaluation`, `model`, or `metric:<label>`. */
  sort?: string;
  dir?: 'asc' | 'desc';
}

const KINDS: readonly EvalKind[] = ['Evaluation', 'EvaluationLogger', 'Run API', 'Server-side'];
export const RUN_STATES: readonly RunState[] = ['success', 'error', 'running'];
export { KINDS as EVAL_KINDS };

export function parseEvalListSearch(raw: Record<string, unknown>): EvalListSearch {
  const text = (v: unknown) => {
    const s = optionalString(v);
    return s && s.length <= 200 ? s : undefined;
  };
  const kind = KINDS.find((k) => k === raw.kind);
  const status = RUN_STATES.find((s) => s === raw.status);
  const out: EvalListSearch = {
    q: text(raw.q),
    evaluation: text(raw.evaluation),
    model: text(raw.model),
    kind,
    status,
    sort: text(raw.sort),
    dir: raw.dir === 'asc' ? 'asc' : raw.dir === 'desc' ? 'desc' : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as EvalListSearch;
}

/** A run's summary metrics by label: each scorer's `true_fraction` or `mean` (`judge.score`, `exact_match`). */
export function runMetrics(output: unknown): Map<string, number> {
  return new Map(summaryMetrics(output).map((m) => [m.path, m.value]));
}

export function runState(call: Pick<Call, 'ended_at' | 'exception'>): RunState {
  if (call.exception) return 'error';
  return call.ended_at ? 'success' : 'running';
}

export const runName = (c: Pick<Call, 'display_name' | 'id'>) => c.display_name ?? c.id;
export const runEvaluation = (c: Pick<Call, 'inputs'>) => refName(c.inputs?.self ?? c.inputs?.this);
export const runModel = (c: Pick<Call, 'inputs'>) => refName(c.inputs?.model);

/** The evaluations, models and metrics the runs have, for the filters' choices (sorted). */
export function listChoices(runs: readonly Call[]): { evaluations: string[]; models: string[]; metrics: string[] } {
  const evaluations = new Set<string>();
  const models = new Set<string>();
  const metrics = new Set<string>();
  for (const c of runs) {
    evaluations.add(runEvaluation(c));
    models.add(runModel(c));
    for (const m of runMetrics(c.output).keys()) metrics.add(m);
  }
  const sorted = (s: Set<string>) => [...s].filter((x) => x !== '—').sort();
  return { evaluations: sorted(evaluations), models: sorted(models), metrics: sorted(metrics) };
}

/** The runs the filters keep, in the chosen order (newest first by default; runs without the metric last). */
export function visibleRuns(runs: readonly Call[], s: EvalListSearch): Call[] {
  const q = s.q?.toLowerCase();
  const kept = runs.filter(
    (c) =>
      (!q || [runName(c), runEvaluation(c), runModel(c)].some((t) => t.toLowerCase().includes(q))) &&
      (!s.evaluation || runEvaluation(c) === s.evaluation) &&
      (!s.model || runModel(c) === s.model) &&
      (!s.kind || evalKind(c) === s.kind) &&
      (!s.status || runState(c) === s.status),
  );
  const sort = s.sort ?? 'started';
  const sign = (s.dir ?? (sort === 'started' || sort.startsWith('metric:') ? 'desc' : 'asc')) === 'asc' ? 1 : -1;
  if (sort.startsWith('metric:')) {
    const label = sort.slice('metric:'.length);
    const value = (c: Call) => runMetrics(c.output).get(label);
    return kept.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      if (x === undefined || y === undefined) return x === undefined ? (y === undefined ? 0 : 1) : -1;
      return sign * (x - y);
    });
  }
  const key: (c: Call) => string =
    sort === 'run'
      ? runName
      : sort === 'evaluation'
        ? runEvaluation
        : sort === 'model'
          ? runModel
          : (c) => c.started_at;
  return kept.sort((a, b) => sign * key(a).localeCompare(key(b)));
}
