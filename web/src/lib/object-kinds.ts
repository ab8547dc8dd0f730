/**
 * What kind of thing an object version is (an op, a dataset, a model, a scorer, a prompt, an
 * evaluation, or any other object), what of its value is an attribute and what is a method (an
 * op ref), and the calls queries that find where a version was used. Plain data only.
 */
import { parseRef } from './format.js';
import type { Operation, Query } from './query.js';
import { isRecord } from './is-record.js';

export const OBJECT_KINDS = ['object', 'dataset', 'model', 'scorer', 'prompt', 'evaluation', 'op'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export const KIND_LABEL: Record<ObjectKind, string> = {
  object: 'Object',
  dataset: 'Dataset',
  model: 'Model',
  scorer: 'Scorer',
  prompt: 'Prompt',
  evaluation: 'Evaluation',
  op: 'Op',
};

/** The plural the kind filter shows. */
export const KIND_PLURAL: Record<ObjectKind, string> = {
  object: 'Other objects',
  dataset: 'Datasets',
  model: 'Models',
  scorer: 'Scorers',
  prompt: 'Prompts',
  evaluation: 'Evaluations',
  op: 'Ops',
};

export interface ClassedObject {
  kind: 'op' | 'object';
  base_object_class: string | null;
  leaf_object_class: string | null;
}

const PROMPT_CLASSES = new Set(['Prompt', 'StringPrompt', 'MessagesPrompt', 'EasyPrompt']);

/** The kind from the classes the server records (base first: a `MyModel(Model)` is a model). */
export function objectKind(o: ClassedObject): ObjectKind {
  if (o.kind === 'op') return 'op';
  const classes = [o.base_object_class, o.leaf_object_class];
  if (classes.includes('Dataset')) return 'dataset';
  if (classes.includes('Model')) return 'model';
  if (classes.includes('Scorer')) return 'scorer';
  if (classes.includes('Evaluation')) return 'evaluation';
  if (classes.some((c) => c != null && PROMPT_CLASSES.has(c))) return 'prompt';
  return 'object';
}

export function isObjectKind(v: unknown): v is ObjectKind {
  return typeof v === 'string' && (OBJECT_KINDS as readonly string[]).includes(v);
}

export interface ObjectMethod {
  /** The attribute holding the op (`predict`, `score`). */
  attribute: string;
  ref: string;
  /** The op's name and version digest. */
  name: string;
  digest: string;
}

/** The top-level attributes of a value that are op refs: a model's `predict`, a scorer's `score`. */
export function objectMethods(val: unknown): ObjectMethod[] {
  if (!isRecord(val)) return [];
  const out: ObjectMethod[] = [];
  for (const [attribute, v] of Object.entries(val)) {
    if (typeof v !== 'string') continue;
    const ref = parseRef(v);
    if (ref?.kind === 'op' && ref.extra.length === 0)
      out.push({ attribute, ref: v, name: ref.name, digest: ref.digest });
  }
  return out;
}

export interface ObjectAttribute {
  name: string;
  value: unknown;
}

/**
 * The attributes a reader looks for first (a model's `model`, `temperature`, `system_prompt`):
 * the top-level fields that are not the serializer's own (`_type`, `_class_name`, `_bases`), not
 * methods, and not `name` or `description` (the page shows those already).
 */
export function objectAttributes(val: unknown): ObjectAttribute[] {
  if (!isRecord(val)) return [];
  const methods = new Set(objectMethods(val).map((m) => m.attribute));
  return Object.entries(val)
    .filter(([k]) => !k.startsWith('_') && !methods.has(k) && k !== 'name' && k !== 'description')
    .map(([name, value]) => ({ name, value }));
}

/** The calls whose input `field` is exactly `ref` (`self` for a method's calls, `model` for evaluations). */
export function inputRefQuery(field: string, ref: string): Query {
  const op: Operation = { $eq: [{ $getField: `inputs.${field}` }, { $literal: ref }] };
  return { $expr: op };
}

/** The same filter as the traces page's field filter text (`lib/query.ts` parseFieldFilter). */
export function inputRefFilterText(field: string, ref: string): string {
  return `inputs.${field} = ${JSON.stringify(ref)}`;
}

export interface UsageInput {
  /** The input that holds the version's ref. */
  field: string;
  title: string;
  /** Only calls of this op (every version), as the traces page's `op` takes it. */
  op?: string;
}

/** The op of an evaluation run; its `predict_and_score` children take the model too. */
export const EVALUATE_OP = 'Evaluation.evaluate';

/** Where the calls that used a version of this kind are found: the input that holds it. */
export function usageInputs(kind: ObjectKind): UsageInput[] {
  switch (kind) {
    case 'model':
      return [
        { field: 'model', title: 'Evaluations of this version', op: EVALUATE_OP },
        { field: 'self', title: 'Calls of its methods' },
      ];
    case 'scorer':
      return [{ field: 'self', title: 'Calls of its methods' }];
    case 'evaluation':
      return [{ field: 'self', title: 'Runs of this evaluation', op: EVALUATE_OP }];
    default:
      return [];
  }
}
