import { isRecord, type EvalCall, type JsonRecord } from '../../../domain/eval-results/types.js';
import { summarizeTrials, type TrialOutput } from '../../../domain/server-eval/auto-summarize.js';
import { derivedCallId } from '../../../domain/server-eval/call-ids.js';
import { exceptionText, Rollup } from '../../../domain/server-eval/rollup.js';
import type { Caller } from '../../auth-service.js';
import type { FeedbackService } from '../../feedback-service.js';
import type { EvalCalls } from '../eval-calls.js';
import type { ExecScope, LlmExec } from './llm-exec.js';
import { isRefString, type ObjectReader } from './object-reader.js';
import { evaluationDisplayName, loadEvaluationPlan, type EvaluationPlan } from './plan.js';
import { runBounded } from './pool.js';
import { addRunnableFeedback } from './runnable-feedback.js';

/**
 * The server-side evaluation run (docs/spec/evaluations.md §6.2): the call tree of the SDK's
 * `Evaluation.evaluate(model)`. Resumable: every call id is derived from the root id and the
 * call's place (row index, trial, scorer index), trials whose `predict_and_score` already ended are
 * taken as they are, and an interrupted trial is rewritten under the same ids.
 */

export interface EvaluationProgress {
  completed_rows: number;
  total_rows: number;
}

export interface RunServerEvaluationArgs {
  caller: Caller;
  projectId: string;
  /** The id (and trace id) of the `Evaluation.evaluate` root call. */
  callId: string;
  evaluationRef: string;
  modelRef: string;
  /** Awaited after each finished trial; a throw stops the run (its finished trials stay). */
  onProgress?: (progress: EvaluationProgress) => void | Promise<void>;
  /** Stops the run between trials (lease lost, shutdown); started trials finish first. */
  signal?: AbortSignal;
}

export const WORKER_ATTRIBUTES: JsonRecord = { _weave_eval_meta: { evaluate_model_worker: true } };

/** A stored summary's `status_counts` and `usage`, to fold a finished call into its parent's. */
export function rollupOfSummary(summary: JsonRecord): Rollup {
  const rollup = new Rollup();
  const counts = isRecord(summary.status_counts) ? summary.status_counts : {};
  rollup.success = typeof counts.success === 'number' ? counts.success : 0;
  rollup.error = typeof counts.error === 'number' ? counts.error : 0;
  if (isRecord(summary.usage))
    for (const [model, usage] of Object.entries(summary.usage)) rollup.addUsage(model, usage);
  return rollup;
}

function trialOf(call: EvalCall): TrialOutput {
  const out = isRecord(call.output) ? call.output : {};
  return {
    output: out.output ?? null,
    scores: isRecord(out.scores) ? out.scores : {},
    model_latency: typeof out.model_latency === 'number' ? out.model_latency : null,
  };
}

export class EvaluationRunner {
  constructor(
    private readonly calls: EvalCalls,
    private readonly objects: ObjectReader,
    private readonly exec: LlmExec,
    private readonly feedback: FeedbackService,
    private readonly concurrency: number,
  ) {}

  async #opRef(scope: ExecScope, field: unknown, name: string): Promise<string> {
    return isRefString(field) ? field : this.calls.opRef(scope.caller, scope.projectId, name);
  }

  async run(args: RunServerEvaluationArgs): Promise<JsonRecord> {
    const { caller, projectId, callId } = args;
    const scope: ExecScope = { caller, projectId, traceId: callId, attributes: WORKER_ATTRIBUTES };
    const existing = await this.calls.read(projectId, callId);
    if (existing?.endedAt != null) return isRecord(existing.output) ? existing.output : {};
    let plan: EvaluationPlan;
    let rows: Array<{ digest: string; val: JsonRecord }>;
    try {
      plan = await loadEvaluationPlan(this.objects, projectId, args.evaluationRef, args.modelRef);
      rows = await this.objects.tableRows(projectId, plan.tableDigest);
    } catch (error) {
      // §6.1 our choice: a job failing before the root exists records it failed, so status says so
      if (existing === null) {
        await this.#startRoot(scope, args, null);
        await this.calls.end(projectId, callId, null, new Rollup().close(true), exceptionText(error));
      }
      throw error;
    }
    if (existing === null) await this.#startRoot(scope, args, plan);
    const done = new Map<string, EvalCall>();
    for (const child of await this.calls.children(projectId, [callId]))
      if (child.endedAt !== null && child.parentId === callId) done.set(child.id, child);
    const total = rows.length * plan.trials;
    const outputs: TrialOutput[] = new Array<TrialOutput>(total);
    const rollup = new Rollup();
    let completed = 0;
    const tasks: Array<() => Promise<void>> = [];
    rows.forEach((row, index) => {
      for (let trial = 0; trial < plan.trials; trial += 1) {
        const slot = index * plan.trials + trial;
        const id = derivedCallId(callId, 'predict_and_score', index, trial);
        const finished = done.get(id);
        if (finished) {
          outputs[slot] = trialOf(finished);
          rollup.add(rollupOfSummary(finished.summary));
          completed += 1;
          continue;
        }
        tasks.push(async () => {
          args.signal?.throwIfAborted();
          const result = await this.#trial(scope, plan, args, id, row);
          outputs[slot] = result.output;
          rollup.add(result.rollup);
          completed += 1;
          await args.onProgress?.({ completed_rows: completed, total_rows: total });
        });
      }
    });
    await runBounded(tasks, this.concurrency);
    const summary = summarizeTrials(
      outputs,
      plan.scorers.map((s) => s.key),
    );
    const summarizeId = derivedCallId(callId, 'summarize');
    await this.calls.start(caller, projectId, {
      id: summarizeId,
      traceId: callId,
      parentId: callId,
      opName: await this.#opRef(scope, plan.evaluation.val.summarize, 'Evaluation.summarize'),
      inputs: { self: args.evaluationRef },
      attributes: WORKER_ATTRIBUTES,
    });
    await this.calls.end(projectId, summarizeId, summary, new Rollup().close(false));
    rollup.success += 1;
    await this.calls.end(projectId, callId, summary, rollup.close(false));
    return summary;
  }

  /**
   * §6.1 our choice, for a job that failed for good outside `run` (its handler threw mid-run, or its
   * last lease expired): the root call ends with `message`, so status reports `failed` instead of
   * `running` forever. A root that already ended is left as it is.
   */
  async abandon(args: RunServerEvaluationArgs, message: string): Promise<void> {
    const { caller, projectId, callId } = args;
    const existing = await this.calls.read(projectId, callId);
    if (existing?.endedAt != null) return;
    if (existing === null)
      await this.#startRoot({ caller, projectId, traceId: callId, attributes: WORKER_ATTRIBUTES }, args, null);
    await this.calls.end(projectId, callId, null, new Rollup().close(true), message);
  }

  async #startRoot(scope: ExecScope, args: RunServerEvaluationArgs, plan: EvaluationPlan | null): Promise<void> {
    await this.calls.start(scope.caller, scope.projectId, {
      id: args.callId,
      traceId: args.callId,
      parentId: null,
      opName: await this.#opRef(scope, plan?.evaluation.val.evaluate, 'Evaluation.evaluate'),
      inputs: { self: args.evaluationRef, model: args.modelRef },
      attributes: WORKER_ATTRIBUTES,
      displayName: evaluationDisplayName(plan?.evaluation.val ?? {}, args.callId),
    });
  }

  /** One `predict_and_score`: predict, then every scorer at once; feedback on the predict call. */
  async #trial(
    scope: ExecScope,
    plan: EvaluationPlan,
    args: RunServerEvaluationArgs,
    id: string,
    row: { digest: string; val: JsonRecord },
  ): Promise<{ output: TrialOutput; rollup: Rollup }> {
    await this.calls.start(scope.caller, scope.projectId, {
      id,
      traceId: scope.traceId,
      parentId: args.callId,
      opName: await this.#opRef(scope, plan.evaluation.val.predict_and_score, 'Evaluation.predict_and_score'),
      inputs: {
        self: args.evaluationRef,
        model: args.modelRef,
        example: `${plan.datasetRef}/attr/rows/id/${row.digest}`,
      },
      attributes: WORKER_ATTRIBUTES,
    });
    const rollup = new Rollup();
    const predictId = derivedCallId(id, 'predict');
    const predicted = await this.exec.predict(scope, predictId, id, plan.model, row.val);
    rollup.add(predicted.rollup);
    const scores: JsonRecord = {};
    if (predicted.error === null) {
      const results = await Promise.all(
        plan.scorers.map((scorer, k) =>
          this.exec.score(scope, derivedCallId(id, 'score', k), id, scorer, row.val, predicted.output),
        ),
      );
      for (const [k, scorer] of plan.scorers.entries()) {
        const result = results[k]!;
        rollup.add(result.rollup);
        scores[scorer.key] = result.output;
        if (result.error !== null) continue;
        await addRunnableFeedback(this.feedback, scope.caller, scope.projectId, {
          scoredCallId: predictId,
          scorer,
          scorerCallId: derivedCallId(id, 'score', k),
          output: result.output,
        });
      }
    }
    const output: TrialOutput = { output: predicted.output, scores, model_latency: predicted.latency };
    await this.calls.end(scope.projectId, id, output, rollup.close(false));
    return { output, rollup };
  }
}
