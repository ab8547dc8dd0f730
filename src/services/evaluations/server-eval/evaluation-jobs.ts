import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { uuidv7 } from '../../../domain/ids.js';
import type { CallsScoreReq, EvaluateModelReq, EvaluateModelRes } from '../../../schemas/evaluations-server.js';
import type { BackgroundJobRow } from '../../../store/job-types.js';
import { ENTITY_ROLES, type EntityRole } from '../../../domain/roles.js';
import type { Caller } from '../../auth-service.js';
import type { JobHandlers, JobRuntime } from '../../jobs/index.js';
import type { ServerEvaluationService } from './server-evaluation-service.js';

/** §5: the real service scores at most this many calls per job. */
export const SCORE_CALLS_PER_JOB = 100;

export const EVALUATE_MODEL = 'evaluate_model';
export const SCORE_CALLS = 'score_calls';

/** The requester, as the job runs on their behalf (a job may run on another node, after a restart). */
export const StoredCaller = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  defaultEntity: Type.String(),
  isAdmin: Type.Boolean(),
  entities: Type.Array(Type.String()),
  /** [entity, role] pairs; jobs queued before roles were stored ran as members (docs/roles-and-audit.md). */
  roles: Type.Optional(Type.Array(Type.Tuple([Type.String(), Type.Union(ENTITY_ROLES.map((r) => Type.Literal(r)))]))),
  keyId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const EvaluateModelInput = Type.Object({
  caller: StoredCaller,
  call_id: Type.String(),
  evaluation_ref: Type.String(),
  model_ref: Type.String(),
});
const ScoreCallsInput = Type.Object({
  caller: StoredCaller,
  call_ids: Type.Array(Type.String()),
  scorer_refs: Type.Array(Type.String()),
});

export function storedCaller(caller: Caller): Static<typeof StoredCaller> {
  const { userId, username, defaultEntity, isAdmin, keyId } = caller;
  return { userId, username, defaultEntity, isAdmin, entities: [...caller.entities], roles: [...caller.roles], keyId };
}

export function callerOf(stored: Static<typeof StoredCaller>): Caller {
  const roles = new Map<string, EntityRole>(stored.roles ?? stored.entities.map((e) => [e, 'member']));
  return { ...stored, entities: new Set(stored.entities), roles, keyId: stored.keyId ?? null };
}

function evaluateInput(job: BackgroundJobRow): Static<typeof EvaluateModelInput> {
  return Value.Parse(EvaluateModelInput, JSON.parse(job.input));
}

/**
 * `/evaluations/evaluate_model` and `/calls/score` over the background job queue
 * (docs/spec/evaluations.md §5, §6.1): synchronous checks, then a durable job any node may run.
 */
export class EvaluationJobs {
  constructor(
    private readonly server: ServerEvaluationService,
    private readonly runtime: JobRuntime,
  ) {}

  /** §6.1: the answer's `call_id` is the id the root `Evaluation.evaluate` call will have. */
  async evaluateModel(caller: Caller, req: EvaluateModelReq): Promise<EvaluateModelRes> {
    await this.server.validateEvaluateModel(caller, req.project_id, req.evaluation_ref, req.model_ref);
    const callId = uuidv7();
    const input: Static<typeof EvaluateModelInput> = {
      caller: storedCaller(caller),
      call_id: callId,
      evaluation_ref: req.evaluation_ref,
      model_ref: req.model_ref,
    };
    await this.runtime.enqueue([
      {
        project_id: req.project_id,
        id: uuidv7(),
        kind: EVALUATE_MODEL,
        input: JSON.stringify(input),
        created_by: caller.userId,
      },
    ]);
    return { call_id: callId };
  }

  /** §5: one job per 100 calls; empty lists are a no-op (our choice). */
  async scoreCalls(caller: Caller, req: CallsScoreReq): Promise<Record<string, never>> {
    await this.server.validateScoreCalls(caller, req.project_id, req.scorer_refs);
    if (req.call_ids.length === 0 || req.scorer_refs.length === 0) return {};
    const jobs = [];
    for (let i = 0; i < req.call_ids.length; i += SCORE_CALLS_PER_JOB) {
      const input: Static<typeof ScoreCallsInput> = {
        caller: storedCaller(caller),
        call_ids: req.call_ids.slice(i, i + SCORE_CALLS_PER_JOB),
        scorer_refs: req.scorer_refs,
      };
      jobs.push({
        project_id: req.project_id,
        id: uuidv7(),
        kind: SCORE_CALLS,
        input: JSON.stringify(input),
        created_by: caller.userId,
      });
    }
    await this.runtime.enqueue(jobs);
    return {};
  }
}

/** The handlers of both kinds; both job bodies are resumable, so a re-leased job continues the work. */
export function evaluationJobHandlers(server: ServerEvaluationService): JobHandlers {
  const evaluateArgs = (job: BackgroundJobRow, signal?: AbortSignal) => {
    const input = evaluateInput(job);
    return {
      caller: callerOf(input.caller),
      projectId: job.project_id,
      callId: input.call_id,
      evaluationRef: input.evaluation_ref,
      modelRef: input.model_ref,
      signal,
    };
  };
  return {
    [EVALUATE_MODEL]: {
      run: async (job, signal) => {
        await server.runServerEvaluation(evaluateArgs(job, signal));
      },
      failed: (job, reason) => server.abandonServerEvaluation(evaluateArgs(job), reason),
    },
    [SCORE_CALLS]: {
      run: async (job) => {
        const input = Value.Parse(ScoreCallsInput, JSON.parse(job.input));
        await server.scoreCalls({
          caller: callerOf(input.caller),
          projectId: job.project_id,
          callIds: input.call_ids,
          scorerRefs: input.scorer_refs,
        });
      },
    },
  };
}
