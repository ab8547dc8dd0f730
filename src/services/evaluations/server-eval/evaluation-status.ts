import { opNameOf } from '../../../domain/eval-results/trials.js';
import { isRecord } from '../../../domain/eval-results/types.js';
import { InvalidRequestError } from '../../../errors/app-error.js';
import type { EvaluationStatusRes } from '../../../schemas/evaluations-server.js';
import { toEvalCall, type EvalCalls } from '../eval-calls.js';
import type { ObjectReader } from './object-reader.js';

/**
 * `POST /evaluations/status` (docs/spec/evaluations.md §6.4), for any `Evaluation.evaluate` call:
 * a pure read of the root call and its direct children.
 */
export async function evaluationStatus(
  calls: EvalCalls,
  objects: ObjectReader,
  projectId: string,
  callId: string,
): Promise<EvaluationStatusRes> {
  const row = await calls.readRow(projectId, callId);
  if (row === null) return { status: { code: 'not_found' } };
  const call = toEvalCall(row);
  if (!opNameOf(call).includes('Evaluation.evaluate')) throw new InvalidRequestError('Call is not an evaluation');
  if (row.exception !== null) return { status: { code: 'failed', error: row.exception } };
  if (call.endedAt !== null) return { status: { code: 'complete', output: isRecord(call.output) ? call.output : {} } };
  const children = await calls.children(projectId, [callId]);
  // finished trials only: the `Evaluation.summarize` child ends just before the root does
  const completed = children.filter(
    (child) => child.parentId === callId && child.endedAt !== null && !opNameOf(child).includes('Evaluation.summarize'),
  ).length;
  const rows = await datasetRows(objects, projectId, call.inputs.self ?? call.inputs.this);
  return { status: { code: 'running', completed_rows: completed, total_rows: Math.max(rows ?? completed, completed) } };
}

/** Rows × trials of the evaluation's dataset (our choice over rows alone); null when it cannot be resolved. */
async function datasetRows(objects: ObjectReader, projectId: string, evaluationRef: unknown): Promise<number | null> {
  try {
    const evaluation = await objects.byRef(projectId, evaluationRef, 'evaluation');
    const dataset = await objects.byRef(projectId, evaluation.val.dataset, 'dataset');
    const digest = objects.tableDigest(projectId, dataset.val.rows);
    const count = digest === null ? null : await objects.tableCount(projectId, digest);
    if (count === null) return null;
    const trials = typeof evaluation.val.trials === 'number' && evaluation.val.trials >= 1 ? evaluation.val.trials : 1;
    return count * Math.floor(trials);
  } catch {
    return null;
  }
}
