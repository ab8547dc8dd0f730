import type { EvalCall, JsonRecord } from '../../domain/eval-results/types.js';
import { parseRef, RefParseError } from '../../domain/ref-uri.js';
import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import type * as S from '../../schemas/evaluation-runs.js';
import type { Caller } from '../auth-service.js';
import type { FeedbackService } from '../feedback-service.js';
import type { ProjectAccess } from '../project-access.js';
import { EvalCalls, weaveAttributes } from './eval-calls.js';
import { isPredictAndScore, runIdOf } from './prediction-service.js';
import { markedChildQuery } from './run-queries.js';

/**
 * Scores (docs/spec/evaluations.md §3.5): a `<scorer>.score` call beside the prediction it scores,
 * and the same result as runnable feedback on the prediction (what `call.apply_scorer` records).
 */

function scorerName(ref: string): string {
  try {
    const parsed = parseRef(ref);
    if (parsed.kind === 'object') return parsed.name;
  } catch (error) {
    if (!(error instanceof RefParseError)) throw error;
  }
  throw new InvalidRequestError(
    `scorer must be an object ref (weave:///<entity>/<project>/object/<name>:<digest>): ${ref}`,
  );
}

export class ScoreService {
  constructor(
    private readonly access: ProjectAccess,
    private readonly calls: EvalCalls,
    private readonly feedback: FeedbackService,
  ) {}

  async create(caller: Caller, projectId: string, body: S.ScoreCreateBody): Promise<{ score_id: string }> {
    await this.access.assertCanWrite(caller, projectId);
    const name = scorerName(body.scorer);
    const prediction = await this.calls.read(projectId, body.prediction_id);
    if (!prediction || weaveAttributes(prediction).prediction !== 'true')
      throw new NotFoundError(`Prediction ${body.prediction_id} not found`);
    const runId = body.evaluation_run_id ?? null;
    let placement: { traceId?: string; parentId: string | null } = { parentId: null };
    if (runId !== null) {
      const parent = prediction.parentId === null ? null : await this.calls.read(projectId, prediction.parentId);
      placement = { traceId: runId, parentId: isPredictAndScore(parent) ? parent.id : runId };
    }
    const weave: JsonRecord = { score: 'true', prediction_id: prediction.id, scorer: body.scorer };
    if (runId !== null) weave.evaluation_run_id = runId;
    const scoreId = await this.calls.complete(
      caller,
      projectId,
      {
        opName: await this.calls.opRef(caller, projectId, `${name}.score`),
        ...placement,
        inputs: { self: body.scorer, inputs: prediction.inputs.inputs ?? {}, output: prediction.output },
        attributes: { weave },
      },
      body.value,
    );
    const [entity, project] = projectId.split('/');
    await this.feedback.create(caller, {
      project_id: projectId,
      weave_ref: `weave:///${entity}/${project}/call/${prediction.id}`,
      feedback_type: `wandb.runnable.${name}`,
      payload: { output: body.value ?? null },
      runnable_ref: body.scorer,
    });
    return { score_id: scoreId };
  }

  async #view(projectId: string, call: EvalCall): Promise<S.ScoreReadRes> {
    const scorer = weaveAttributes(call).scorer;
    return {
      score_id: call.id,
      scorer: typeof scorer === 'string' ? scorer : '',
      value: call.output,
      evaluation_run_id: await runIdOf(this.calls, projectId, call),
      wb_user_id: call.wbUserId,
    };
  }

  async read(caller: Caller, projectId: string, id: string): Promise<S.ScoreReadRes> {
    this.access.assertCanRead(caller, projectId);
    const call = await this.calls.read(projectId, id);
    if (!call || weaveAttributes(call).score !== 'true') throw new NotFoundError(`Score ${id} not found`);
    return this.#view(projectId, call);
  }

  async *list(caller: Caller, projectId: string, q: S.ChildListQuery): AsyncGenerator<string> {
    this.access.assertCanRead(caller, projectId);
    const query = markedChildQuery(projectId, 'score', q);
    if (query === null) return;
    for await (const call of this.calls.query(query)) yield `${JSON.stringify(await this.#view(projectId, call))}\n`;
  }

  async delete(caller: Caller, projectId: string, ids: string[]): Promise<{ num_deleted: number }> {
    await this.access.assertCanWrite(caller, projectId);
    return { num_deleted: await this.calls.deleteCounted(projectId, ids) };
  }
}
