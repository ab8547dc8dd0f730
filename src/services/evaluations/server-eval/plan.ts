import { createHash } from 'node:crypto';
import { isRecord, type JsonRecord } from '../../../domain/eval-results/types.js';
import { InvalidRequestError } from '../../../errors/app-error.js';
import { classOf, isRefString, type LoadedObject, type ObjectReader } from './object-reader.js';

/**
 * What a server-side evaluation or scoring job runs, loaded and checked before anything is written
 * (docs/spec/evaluations.md §6.1, §6.3): only built-in classes are executed, never user code.
 */

export const MODEL_CLASS = 'LLMStructuredCompletionModel';
export const SCORER_CLASS = 'LLMAsAJudgeScorer';

export interface ModelSpec {
  /** What the predict call's `inputs.self` holds: the model's ref, or its inline value. */
  self: unknown;
  val: JsonRecord;
}

export interface ScorerSpec {
  ref: string;
  /** Object name of the ref: the feedback type is `wandb.runnable.<objectName>`. */
  objectName: string;
  /** Key in `scores` and the summary: the scorer's `name`, else its class name (§7.1). */
  key: string;
  val: JsonRecord;
  model: ModelSpec;
}

export interface EvaluationPlan {
  evaluation: LoadedObject;
  model: ModelSpec;
  scorers: ScorerSpec[];
  /** The Dataset object's ref; row refs are `<datasetRef>/attr/rows/id/<row digest>`. */
  datasetRef: string;
  tableDigest: string;
  trials: number;
}

const fail = (message: string): never => {
  throw new InvalidRequestError(message);
};

function checkModel(value: JsonRecord, what: string): void {
  const cls = classOf(value);
  if (cls !== MODEL_CLASS)
    fail(
      `${what} must be an ${MODEL_CLASS} (got ${cls ?? 'an object without a class'}); the server runs no other model class`,
    );
}

export async function loadModel(objects: ObjectReader, projectId: string, ref: string): Promise<ModelSpec> {
  const model = await objects.byRef(projectId, ref, 'model_ref');
  checkModel(model.val, 'The model');
  return { self: model.ref, val: model.val };
}

export async function loadScorer(objects: ObjectReader, projectId: string, ref: string): Promise<ScorerSpec> {
  const scorer = await objects.byRef(projectId, ref, 'Scorer ref');
  const cls = classOf(scorer.val);
  if (cls !== SCORER_CLASS)
    fail(`Scorer ${scorer.name} is a ${cls ?? 'value without a class'}; the server only runs ${SCORER_CLASS} scorers`);
  const prompt = scorer.val.scoring_prompt;
  if (typeof prompt !== 'string' && !isRefString(prompt)) fail(`Scorer ${scorer.name} has no scoring_prompt`);
  let model: ModelSpec;
  if (isRefString(scorer.val.model)) {
    model = await loadModel(objects, projectId, scorer.val.model);
  } else if (isRecord(scorer.val.model)) {
    // the Python client may store the judge model inline (not yet published)
    const val = scorer.val.model;
    if (classOf(val) !== null) checkModel(val, `The model of scorer ${scorer.name}`);
    model = { self: val, val };
  } else {
    return fail(`Scorer ${scorer.name} has no model`);
  }
  const name = typeof scorer.val.name === 'string' && scorer.val.name !== '' ? scorer.val.name : SCORER_CLASS;
  return { ref: scorer.ref, objectName: scorer.name, key: name, val: scorer.val, model };
}

/** §6.1 validation: every check the future `/evaluations/evaluate_model` route makes before enqueueing. */
export async function loadEvaluationPlan(
  objects: ObjectReader,
  projectId: string,
  evaluationRef: string,
  modelRef: string,
): Promise<EvaluationPlan> {
  const evaluation = await objects.byRef(projectId, evaluationRef, 'evaluation_ref');
  if (classOf(evaluation.val) !== 'Evaluation') fail(`${evaluationRef} is not an Evaluation`);
  const model = await loadModel(objects, projectId, modelRef);
  const dataset = await objects.byRef(projectId, evaluation.val.dataset, 'The evaluation dataset');
  const tableDigest = objects.tableDigest(projectId, dataset.val.rows);
  if (tableDigest === null) return fail(`Dataset ${dataset.name} has no rows table in ${projectId}`);
  const refs = Array.isArray(evaluation.val.scorers) ? evaluation.val.scorers : [];
  const scorers: ScorerSpec[] = [];
  for (const ref of refs) {
    if (!isRefString(ref)) fail('Every scorer of the evaluation must be a published LLMAsAJudgeScorer ref');
    scorers.push(await loadScorer(objects, projectId, ref as string));
  }
  const trials =
    typeof evaluation.val.trials === 'number' && evaluation.val.trials >= 1 ? Math.floor(evaluation.val.trials) : 1;
  return { evaluation, model, scorers, datasetRef: dataset.ref, tableDigest, trials };
}

const ADJECTIVES = [
  'amber',
  'brisk',
  'calm',
  'daring',
  'eager',
  'fancy',
  'gentle',
  'hazy',
  'ivory',
  'jolly',
  'keen',
  'lucky',
];
const NOUNS = [
  'otter',
  'falcon',
  'maple',
  'harbor',
  'comet',
  'meadow',
  'pebble',
  'lantern',
  'willow',
  'canyon',
  'ember',
  'tide',
];

/** §6.2 step 2: `evaluation_name`, else `eval-YYYY-MM-DD-<adjective>-<noun>` (words picked from the call id). */
export function evaluationDisplayName(evaluation: JsonRecord, callId: string, now = new Date()): string {
  if (typeof evaluation.evaluation_name === 'string' && evaluation.evaluation_name !== '')
    return evaluation.evaluation_name;
  const hash = createHash('sha256').update(callId).digest();
  return `eval-${now.toISOString().slice(0, 10)}-${ADJECTIVES[hash[0]! % ADJECTIVES.length]}-${NOUNS[hash[1]! % NOUNS.length]}`;
}
