import { isRecord, type EvalCall, type JsonRecord } from '../../domain/eval-results/types.js';
import { opNameOf, refObjectName } from '../../domain/eval-results/trials.js';
import { uuidv7 } from '../../domain/ids.js';
import { NotFoundError } from '../../errors/app-error.js';
import type * as S from '../../schemas/evaluation-runs.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import { EvalCalls, weaveAttributes } from './eval-calls.js';
import { markedChildQuery } from './run-queries.js';

/**
 * Predictions (docs/spec/evaluations.md §3.4): a `<model>.predict` call, under an
 * `Evaluation.predict_and_score` call of its run when it belongs to one. Finishing a prediction
 * gathers the scores recorded beside it into that parent's output.
 */

export const isPredictAndScore = (call: EvalCall | null): call is EvalCall =>
  call !== null && opNameOf(call) === 'Evaluation.predict_and_score';

/** The run a prediction or score belongs to: its own link, else the grandparent via `predict_and_score`. */
export async function runIdOf(calls: EvalCalls, projectId: string, call: EvalCall): Promise<string | null> {
  const linked = weaveAttributes(call).evaluation_run_id;
  if (typeof linked === 'string') return linked;
  if (call.parentId === null) return null;
  const parent = await calls.read(projectId, call.parentId);
  return isPredictAndScore(parent) ? parent.parentId : null;
}

export class PredictionService {
  constructor(
    private readonly access: ProjectAccess,
    private readonly calls: EvalCalls,
  ) {}

  async create(caller: Caller, projectId: string, body: S.PredictionCreateBody): Promise<{ prediction_id: string }> {
    await this.access.assertCanWrite(caller, projectId);
    const runId = body.evaluation_run_id ?? null;
    const run = runId === null ? null : await this.calls.readOrThrow(projectId, runId, 'Evaluation run');
    const modelName = refObjectName(body.model) ?? 'Model';
    const predictOp = await this.calls.opRef(caller, projectId, `${modelName}.predict`);
    const weave: JsonRecord = { prediction: 'true', model: body.model };
    if (runId !== null) weave.evaluation_run_id = runId;
    if (body.genai_span_ref != null) weave.genai_span_ref = body.genai_span_ref;
    let parentId: string | null = null;
    const predictionId = uuidv7();
    if (run) {
      parentId = await this.calls.start(caller, projectId, {
        opName: await this.calls.opRef(caller, projectId, 'Evaluation.predict_and_score'),
        traceId: run.traceId,
        parentId: run.id,
        inputs: { self: run.inputs.self ?? null, model: body.model, example: body.inputs },
        attributes: { weave: { predict_call_id: predictionId } },
      });
    }
    await this.calls.complete(
      caller,
      projectId,
      {
        id: predictionId,
        opName: predictOp,
        traceId: run?.traceId,
        parentId,
        inputs: { self: body.model, inputs: body.inputs },
        attributes: { weave },
      },
      body.output,
    );
    return { prediction_id: predictionId };
  }

  async #readPrediction(projectId: string, id: string): Promise<EvalCall> {
    const call = await this.calls.read(projectId, id);
    if (!call || weaveAttributes(call).prediction !== 'true') throw new NotFoundError(`Prediction ${id} not found`);
    return call;
  }

  async read(caller: Caller, projectId: string, id: string): Promise<S.PredictionReadRes> {
    this.access.assertCanRead(caller, projectId);
    return this.#view(projectId, await this.#readPrediction(projectId, id));
  }

  async #view(projectId: string, call: EvalCall): Promise<S.PredictionReadRes> {
    const model = weaveAttributes(call).model;
    return {
      prediction_id: call.id,
      model: typeof model === 'string' ? model : '',
      inputs: isRecord(call.inputs.inputs) ? call.inputs.inputs : {},
      output: call.output,
      evaluation_run_id: await runIdOf(this.calls, projectId, call),
      wb_user_id: call.wbUserId,
    };
  }

  async *list(caller: Caller, projectId: string, q: S.ChildListQuery): AsyncGenerator<string> {
    this.access.assertCanRead(caller, projectId);
    const query = markedChildQuery(projectId, 'prediction', q);
    if (query === null) return;
    for await (const call of this.calls.query(query)) yield `${JSON.stringify(await this.#view(projectId, call))}\n`;
  }

  async delete(caller: Caller, projectId: string, ids: string[]): Promise<{ num_deleted: number }> {
    await this.access.assertCanWrite(caller, projectId);
    return { num_deleted: await this.calls.deleteCounted(projectId, ids) };
  }

  /** §3.4 finish: the parent `predict_and_score` ends with the output, the scores and the latency. */
  async finish(caller: Caller, projectId: string, id: string): Promise<{ success: boolean }> {
    await this.access.assertCanWrite(caller, projectId);
    const prediction = await this.#readPrediction(projectId, id);
    const parent = prediction.parentId === null ? null : await this.calls.read(projectId, prediction.parentId);
    if (!isPredictAndScore(parent)) return { success: true };
    const scores: JsonRecord = {};
    for (const child of await this.calls.children(projectId, [parent.id])) {
      const weave = weaveAttributes(child);
      if (weave.score !== 'true' || child.output === null || child.output === undefined) continue;
      scores[refObjectName(weave.scorer) ?? 'unknown'] = child.output;
    }
    const latency = prediction.endedAt === null ? 0 : Math.max(0, prediction.endedAt - prediction.startedAt) / 1e6;
    await this.calls.end(projectId, parent.id, {
      output: prediction.output,
      scores,
      model_latency: { mean: latency },
    });
    return { success: true };
  }
}
