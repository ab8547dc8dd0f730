import { formatRef } from '../domain/ref-uri.js';
import type { JsonObject, JsonValue } from '../domain/json-value.js';
import type { ObjectsFilter, ObjectVersionRow } from '../store/types.js';

/**
 * The pure half of the v2 object APIs (docs/spec/evaluations.md §2): the five families, how a name becomes
 * an object id, the placeholder op sources and the values each create stores.
 */

export type V2Family = 'ops' | 'datasets' | 'scorers' | 'models' | 'evaluations';

export const V2_FAMILIES: readonly V2Family[] = ['ops', 'datasets', 'scorers', 'models', 'evaluations'];

/** The base class whose objects a family sees (§2.8); ops are matched by kind instead. */
const FAMILY_CLASS: Record<V2Family, string | null> = {
  ops: null,
  datasets: 'Dataset',
  scorers: 'Scorer',
  models: 'Model',
  evaluations: 'Evaluation',
};

/** The object id (and stored name, for datasets) used when a create names nothing (§2.2). */
export const DEFAULT_OBJECT_ID: Record<V2Family, string> = {
  ops: 'Op',
  datasets: 'Dataset',
  scorers: 'Scorer',
  models: 'Model',
  evaluations: 'Evaluation',
};

/** §2.2: spaces and slashes become underscores, then lowercase; no name gives the family default. */
export function makeObjectId(name: string | null | undefined, fallback: string): string {
  if (name == null) return fallback;
  return name.replace(/[ /]/g, '_').toLowerCase();
}

/** Whether a stored version belongs to the family (§2.8 list filter, also applied to read and delete). */
export function belongsToFamily(row: Pick<ObjectVersionRow, 'kind' | 'base_object_class'>, family: V2Family): boolean {
  const cls = FAMILY_CLASS[family];
  return cls === null ? row.kind === 'op' : row.kind === 'object' && row.base_object_class === cls;
}

/** The store filter that selects a family's versions. */
export function familyFilter(family: V2Family): ObjectsFilter {
  const cls = FAMILY_CLASS[family];
  return cls === null ? { is_op: true } : { base_object_classes: [cls] };
}

// Placeholder sources stored when there is no real code to keep. They are fixed text, so publishing
// the same thing twice gives the same digests (§2.7).

export const OP_SOURCE_PLACEHOLDER =
  'def func(*args, **kwargs):\n    # Heddle: this op was created without source code; nothing was captured.\n    ...\n';

export const SCORER_SUMMARIZE_SOURCE =
  'def summarize(score_rows):\n    # Heddle placeholder: scores are summarised by the default auto-summary (mean of numbers, ratio of booleans).\n    ...\n';

export const EVALUATION_OP_SOURCES: Record<'evaluate' | 'predict_and_score' | 'summarize', string> = {
  evaluate:
    'def evaluate(self, model):\n    # Heddle placeholder: this evaluation was declared through the v2 API; it runs client-side.\n    ...\n',
  predict_and_score:
    'def predict_and_score(self, model, example):\n    # Heddle placeholder: prediction and scoring of one row happen in the client.\n    ...\n',
  summarize:
    'def summarize(self, eval_table):\n    # Heddle placeholder: results are summarised by the default auto-summary.\n    ...\n',
};

/** The stored value of an op whose source is the file `obj.py` (§2.3). */
export function opValue(fileDigest: string): JsonObject {
  return { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': fileDigest } };
}

const OBJECT_BASES = ['Object', 'BaseModel'];

/** `_type`, `_class_name` and `_bases` of an object stored directly on `Object`. */
export function classFields(className: string): JsonObject {
  return { _type: className, _class_name: className, _bases: [...OBJECT_BASES] };
}

/** Model value keys that attributes cannot overwrite (our choice in §2.6). */
export const MODEL_RESERVED_KEYS: ReadonlySet<string> = new Set([
  '_type',
  '_class_name',
  '_bases',
  'name',
  'description',
  'files',
]);

/** Every key an evaluation value sets itself; `eval_attributes` cannot overwrite any of them (our choice in §2.7). */
export const EVALUATION_RESERVED_KEYS: ReadonlySet<string> = new Set([
  ...MODEL_RESERVED_KEYS,
  'dataset',
  'scorers',
  'trials',
  'evaluation_name',
  'metadata',
  'preprocess_model_input',
  'evaluate',
  'predict_and_score',
  'summarize',
]);

/** The entries of `extra` whose keys are not reserved, as own properties (also a `__proto__` key). */
export function withoutReserved(extra: JsonObject | null | undefined, reserved: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (!reserved.has(key))
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function splitProject(projectId: string): { entity: string; project: string } {
  const slash = projectId.indexOf('/');
  return { entity: projectId.slice(0, slash), project: projectId.slice(slash + 1) };
}

export function objectRef(projectId: string, objectId: string, digest: string): string {
  return formatRef({ kind: 'object', ...splitProject(projectId), name: objectId, version: digest, extra: [] });
}

export function opRef(projectId: string, objectId: string, digest: string): string {
  return formatRef({ kind: 'op', ...splitProject(projectId), name: objectId, version: digest, extra: [] });
}

export function tableRef(projectId: string, digest: string): string {
  return formatRef({ kind: 'table', ...splitProject(projectId), digest });
}

/** A value field as a string, else the fallback. */
export function stringField<T>(val: JsonObject, key: string, fallback: T): string | T {
  const value: JsonValue | undefined = val[key];
  return typeof value === 'string' ? value : fallback;
}

/** The digest of the `obj.py` file a value names, or null. */
export function sourceFileDigest(val: JsonObject): string | null {
  const files = val.files;
  if (files === null || typeof files !== 'object' || Array.isArray(files)) return null;
  const digest = (files as JsonObject)['obj.py'];
  return typeof digest === 'string' ? digest : null;
}
