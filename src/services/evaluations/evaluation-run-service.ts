import { callToJson } from '../../domain/call-view.js';
import { isRecord, type EvalCall, type JsonRecord } from '../../domain/eval-results/types.js';
import { opNameOf } from '../../domain/eval-results/trials.js';
import { formatMicros } from '../../domain/time.js';
import { NotFoundError } from '../../errors/app-error.js';
import type * as S from '../../schemas/evaluation-runs.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import { EvalCalls, listOf, toEvalCall, weaveAttributes } from './eval-calls.js';
import { attributeQuery, checkListPaging, type AttributeCondition } from './run-queries.js';

/**
 * Evaluation runs (docs/spec/evaluations.md §3.3): an `Evaluation.evaluate` call marked
 * `attributes.weave.evaluation_run = "true"`, finished with the means of its predictions' scores.
 */

const stringOr = (...values: unknown[]): string => values.find((v): v is string => typeof v === 'string') ?? '';

const numbersIn = (values: unknown[]): number[] =>
  values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** §3.3 finish steps 2–4: the mean of each scorer's numeric scores, and of numeric model outputs. */
export function runOutput(trialOutputs: JsonRecord[]): JsonRecord {
  const byScorer = new Map<string, unknown[]>();
  for (const output of trialOutputs) {
    const scores = isRecord(output.scores) ? output.scores : {};
    for (const [key, value] of Object.entries(scores)) byScorer.set(key, [...(byScorer.get(key) ?? []), value]);
  }
  const result: JsonRecord = {};
  for (const [key, values] of byScorer) {
    const numbers = numbersIn(values);
    if (numbers.length > 0) result[key] = { mean: mean(numbers) };
  }
  const outputs = numbersIn(trialOutputs.map((o) => o.output));
  if (outputs.length > 0) result.output = { mean: mean(outputs) };
  return result;
}

export class EvaluationRunService {
  constructor(
    private readonly access: ProjectAccess,
    private readonly calls: EvalCalls,
  ) {}

  async create(
    caller: Caller,
    projectId: string,
    body: S.EvaluationRunCreateBody,
  ): Promise<{ evaluation_run_id: string }> {
    await this.access.assertCanWrite(caller, projectId);
    const weave: JsonRecord = { evaluation_run: 'true', evaluation: body.evaluation, model: body.model };
    if (body.source_evaluation_run_id != null) weave.source_evaluation_run_id = body.source_evaluation_run_id;
    const id = await this.calls.start(caller, projectId, {
      opName: await this.calls.opRef(caller, projectId, 'Evaluation.evaluate'),
      parentId: null,
      inputs: { self: body.evaluation, model: body.model },
      attributes: { weave },
    });
    return { evaluation_run_id: id };
  }

  async read(caller: Caller, projectId: string, id: string): Promise<S.EvaluationRunReadRes> {
    this.access.assertCanRead(caller, projectId);
    const row = await this.calls.readRow(projectId, id);
    if (!row) throw new NotFoundError(`Evaluation run ${id} not found`);
    const view = JSON.parse(
      callToJson(row, { columns: null, includeStorageSize: false, includeTotalStorageSize: false }),
    );
    const call = toEvalCall(row);
    const weave = weaveAttributes(call);
    return {
      evaluation_run_id: call.id,
      evaluation: stringOr(weave.evaluation, call.inputs.self, call.inputs.this),
      model: stringOr(weave.model, call.inputs.model),
      status: call.endedAt === null ? 'running' : row.exception !== null ? 'failed' : 'completed',
      started_at: formatMicros(call.startedAt),
      finished_at: call.endedAt === null ? null : formatMicros(call.endedAt),
      summary: isRecord(view.summary) ? view.summary : null,
      source_evaluation_run_id:
        typeof weave.source_evaluation_run_id === 'string' ? weave.source_evaluation_run_id : null,
    };
  }

  async *list(caller: Caller, projectId: string, q: S.EvaluationRunListQuery): AsyncGenerator<string> {
    this.access.assertCanRead(caller, projectId);
    const page = checkListPaging(q.limit, q.offset);
    if (page.limit === 0) return;
    const conditions: AttributeCondition[] = [{ path: 'attributes.weave.evaluation_run', equals: 'true' }];
    const evaluations = listOf(q.evaluations);
    const models = listOf(q.models);
    const ids = listOf(q.evaluation_run_ids);
    if (q.evaluations !== undefined) conditions.push({ path: 'attributes.weave.evaluation', oneOf: evaluations });
    if (q.models !== undefined) conditions.push({ path: 'attributes.weave.model', oneOf: models });
    for await (const call of this.calls.query(
      attributeQuery(projectId, conditions, page, q.evaluation_run_ids === undefined ? null : ids),
    )) {
      yield `${JSON.stringify(await this.read(caller, projectId, call.id))}\n`;
    }
  }

  async delete(caller: Caller, projectId: string, ids: string[]): Promise<{ num_deleted: number }> {
    await this.access.assertCanWrite(caller, projectId);
    return { num_deleted: await this.calls.deleteCounted(projectId, ids) };
  }

  /** §3.3 finish: summarise the finished predictions, record `Evaluation.summarize`, end the run. */
  async finish(caller: Caller, projectId: string, id: string, summary: JsonRecord | null | undefined) {
    await this.access.assertCanWrite(caller, projectId);
    const run = await this.calls.readOrThrow(projectId, id, 'Evaluation run');
    if (run.endedAt !== null) return { success: true };
    const children = await this.calls.children(projectId, [id]);
    const trialOutputs = children
      .filter((child: EvalCall) => opNameOf(child) === 'Evaluation.predict_and_score' && isRecord(child.output))
      .map((child) => child.output as JsonRecord);
    const output = runOutput(trialOutputs);
    await this.calls.complete(
      caller,
      projectId,
      {
        opName: 'Evaluation.summarize',
        traceId: run.traceId,
        parentId: run.id,
        inputs: { self: run.inputs.self ?? null },
        attributes: {},
      },
      output,
    );
    await this.calls.end(projectId, id, output, summary ?? {});
    return { success: true };
  }
}
