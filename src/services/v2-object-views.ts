import { isJsonObject, type JsonObject } from '../domain/json-value.js';
import { formatMicros } from '../domain/time.js';
import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import type { V2ReadRes } from '../schemas/v2-objects.js';
import type { ObjectVersionRow } from '../store/types.js';
import { MODEL_RESERVED_KEYS, sourceFileDigest, stringField, type V2Family } from './v2-object-values.js';

/**
 * The read views of the v2 object APIs (docs/spec/evaluations.md §2.3–2.7): what each family shows of a
 * stored version. Values written by the SDK are read the same way, with the documented fallbacks.
 */

/** Reads a file's text by digest; null when the project has no such file. */
export type SourceLoader = (digest: string) => Promise<string | null>;

/** Whether the view is for a single read (a model without source is then an error) or a list line. */
export type ViewMode = 'read' | 'list';

export async function familyView(
  family: V2Family,
  row: ObjectVersionRow,
  loadSource: SourceLoader,
  mode: ViewMode,
): Promise<V2ReadRes> {
  const parsed: unknown = JSON.parse(row.val);
  const val: JsonObject = isJsonObject(parsed) ? parsed : {};
  const base = {
    object_id: row.object_id,
    digest: row.digest,
    version_index: row.version_index,
    created_at: formatMicros(row.created_at),
  };
  switch (family) {
    case 'ops':
      return { ...base, code: await sourceOf(val, loadSource) };
    case 'datasets':
      return { ...base, ...nameAndDescription(val, row), rows: stringField(val, 'rows', '') };
    case 'scorers':
      return { ...base, ...nameAndDescription(val, row), score_op: stringField(val, 'score', '') };
    case 'models':
      return { ...base, ...nameAndDescription(val, row), ...(await modelFields(val, row, loadSource, mode)) };
    case 'evaluations':
      return { ...base, ...nameAndDescription(val, row), ...evaluationFields(val) };
  }
}

function nameAndDescription(val: JsonObject, row: ObjectVersionRow): { name: string; description: string | null } {
  return { name: stringField(val, 'name', row.object_id), description: stringField(val, 'description', null) };
}

/** The text of the value's `obj.py`; "" when it names none or the file is gone. */
async function sourceOf(val: JsonObject, loadSource: SourceLoader): Promise<string> {
  const digest = sourceFileDigest(val);
  return digest === null ? '' : ((await loadSource(digest)) ?? '');
}

async function modelFields(
  val: JsonObject,
  row: ObjectVersionRow,
  loadSource: SourceLoader,
  mode: ViewMode,
): Promise<{ source_code: string; attributes: JsonObject | null }> {
  if (mode === 'read' && sourceFileDigest(val) === null)
    throw new ObjectInvalidRequestError(`Model ${row.object_id} has no source file`, 'ValueError');
  const attributes = Object.fromEntries(Object.entries(val).filter(([key]) => !MODEL_RESERVED_KEYS.has(key)));
  return {
    source_code: await sourceOf(val, loadSource),
    attributes: Object.keys(attributes).length === 0 ? null : attributes,
  };
}

function evaluationFields(val: JsonObject) {
  const scorers = Array.isArray(val.scorers) ? val.scorers.filter((s): s is string => typeof s === 'string') : [];
  const trials = typeof val.trials === 'number' && Number.isInteger(val.trials) ? val.trials : 1;
  return {
    dataset: stringField(val, 'dataset', ''),
    scorers,
    trials,
    evaluation_name: stringField(val, 'evaluation_name', null),
    evaluate_op: stringField(val, 'evaluate', null),
    predict_and_score_op: stringField(val, 'predict_and_score', null),
    summarize_op: stringField(val, 'summarize', null),
  };
}
