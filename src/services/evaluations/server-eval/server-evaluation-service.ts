import type { JsonRecord } from '../../../domain/eval-results/types.js';
import type { EvaluationStatusRes } from '../../../schemas/evaluations-server.js';
import type { Caller } from '../../auth-service.js';
import type { FeedbackService } from '../../feedback-service.js';
import type { ProjectAccess } from '../../project-access.js';
import type { EvalCalls } from '../eval-calls.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import { evaluationStatus } from './evaluation-status.js';
import { LlmExec } from './llm-exec.js';
import type { ObjectReader } from './object-reader.js';
import { loadEvaluationPlan } from './plan.js';
import { EvaluationRunner, type RunServerEvaluationArgs } from './run-evaluation.js';
import { CallScorer, checkScorerRefs, type ScoreCallsArgs } from './score-calls.js';

export interface ServerEvaluationOptions {
  /** Trials (`predict_and_score` calls) of one run in flight at once. */
  concurrency?: number;
}

/**
 * Server-side evaluation and scoring (docs/spec/evaluations.md §5, §6): the synchronous checks a
 * route makes before it enqueues a job, the job bodies a worker runs, and the status read.
 */
export class ServerEvaluationService {
  readonly #runner: EvaluationRunner;
  readonly #scorer: CallScorer;

  /** `objects` and `providers` are shared with the playground's completions (evaluations/index.ts). */
  constructor(
    private readonly access: ProjectAccess,
    private readonly calls: EvalCalls,
    feedback: FeedbackService,
    private readonly objects: ObjectReader,
    providers: ProviderRegistry,
    opts: ServerEvaluationOptions = {},
  ) {
    const exec = new LlmExec(calls, providers, objects);
    this.#runner = new EvaluationRunner(calls, objects, exec, feedback, opts.concurrency ?? 4);
    this.#scorer = new CallScorer(calls, objects, exec, feedback);
  }

  /**
   * §6.1 (our choice): what `/evaluations/evaluate_model` checks before enqueueing: both refs are
   * object refs of the project (400), exist (404), and name an Evaluation whose scorers are all
   * LLMAsAJudgeScorer and an LLMStructuredCompletionModel (400 with the reason).
   */
  async validateEvaluateModel(
    caller: Caller,
    projectId: string,
    evaluationRef: string,
    modelRef: string,
  ): Promise<void> {
    await this.access.assertCanWrite(caller, projectId);
    await loadEvaluationPlan(this.objects, projectId, evaluationRef, modelRef);
  }

  /** §5 (our choice): what `/calls/score` checks before enqueueing: every scorer ref parses as an object ref (400). */
  async validateScoreCalls(caller: Caller, projectId: string, scorerRefs: string[]): Promise<void> {
    await this.access.assertCanWrite(caller, projectId);
    checkScorerRefs(scorerRefs);
  }

  /** The evaluate-model job: runs (or resumes) the evaluation; resolves with the summary. */
  async runServerEvaluation(args: RunServerEvaluationArgs): Promise<JsonRecord> {
    await this.access.assertCanWrite(args.caller, args.projectId);
    return this.#runner.run(args);
  }

  /** Ends the root call of an evaluate-model job that failed for good (see EvaluationRunner.abandon). */
  async abandonServerEvaluation(args: RunServerEvaluationArgs, message: string): Promise<void> {
    await this.#runner.abandon(args, message);
  }

  /** The calls-score job: each (call, scorer) pair once. */
  async scoreCalls(args: ScoreCallsArgs): Promise<void> {
    await this.access.assertCanWrite(args.caller, args.projectId);
    await this.#scorer.run(args);
  }

  async status(caller: Caller, projectId: string, callId: string): Promise<EvaluationStatusRes> {
    this.access.assertCanRead(caller, projectId);
    return evaluationStatus(this.calls, this.objects, projectId, callId);
  }
}
