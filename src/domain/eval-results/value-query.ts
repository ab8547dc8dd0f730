import { InvalidRequestError } from '../../errors/app-error.js';
import type { Operand, Operation } from '../query/ast.js';
import { parseQuery, splitFieldPath } from '../query/parse.js';
import { isRecord, type TrialRecord } from './types.js';

/**
 * Field paths of eval-results filters and sorts (docs/spec/evaluations.md §4.1):
 * `scores.<scorer>[.<path>]`, `inputs.<path>`, `output.<path>` or `outputs.<path>`, read from one
 * trial; and the query language evaluated in memory over them.
 */

export interface TrialField {
  source: 'scores' | 'inputs' | 'output';
  path: string[];
}

export function parseTrialField(path: string): TrialField {
  const [head, ...rest] = splitFieldPath(path);
  if (head === 'scores' && rest.length > 0) return { source: 'scores', path: rest };
  if (head === 'inputs') return { source: 'inputs', path: rest };
  if (head === 'output' || head === 'outputs') return { source: 'output', path: rest };
  throw new InvalidRequestError(
    `Unsupported eval results field "${path}": use scores.<scorer>[.<path>], inputs.<path> or output.<path>`,
  );
}

export function parseTrialQuery(query: { $expr: unknown }): Operation<TrialField> {
  return parseQuery(query, parseTrialField);
}

/** The value at a field of one trial; `resolvedExample` is the row when the example is a ref. */
export function readTrialField(record: TrialRecord, field: TrialField, resolvedExample: unknown): unknown {
  const root =
    field.source === 'scores'
      ? record.trial.scores
      : field.source === 'inputs'
        ? resolvedExample
        : record.trial.model_output;
  let value: unknown = root;
  for (const key of field.path) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (isRecord(value)) value = value[key];
    else return undefined;
  }
  return value;
}

type Getter = (field: TrialField) => unknown;

function convert(value: unknown, to: string): unknown {
  switch (to) {
    case 'exists':
      return value !== undefined && value !== null;
    case 'string':
      return value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
    case 'bool':
      if (typeof value === 'string') return value === 'true' ? true : value === 'false' ? false : null;
      return value === undefined || value === null ? null : Boolean(value);
    default: {
      const n = toNumber(value);
      return n === null ? null : to === 'int' ? Math.trunc(n) : n;
    }
  }
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

function evaluate(operand: Operand<TrialField>, get: Getter): unknown {
  switch (operand.kind) {
    case 'literal':
      return operand.value;
    case 'field':
      return get(operand.field);
    case 'convert':
      return convert(evaluate(operand.input, get), operand.to);
    default:
      return holds(operand, get);
  }
}

/** Compares as numbers when either side is a number (so numeric filters work without `$convert`). */
function compare(left: unknown, right: unknown): number | null {
  if (left === undefined || left === null || right === undefined || right === null) return null;
  if (typeof left === 'number' || typeof right === 'number') {
    const a = toNumber(left);
    const b = toNumber(right);
    return a === null || b === null ? null : a - b;
  }
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === 'boolean' && typeof right === 'boolean') return Number(left) - Number(right);
  return JSON.stringify(left) === JSON.stringify(right) ? 0 : null;
}

function contains(input: unknown, substr: unknown, caseInsensitive: boolean): boolean {
  if (typeof input !== 'string' || typeof substr !== 'string') return false;
  return caseInsensitive ? input.toLowerCase().includes(substr.toLowerCase()) : input.includes(substr);
}

/** Whether the operation holds for the trial whose fields `get` reads. */
export function holds(op: Operation<TrialField>, get: Getter): boolean {
  switch (op.kind) {
    case 'and':
      return op.args.every((arg) => Boolean(evaluate(arg, get)));
    case 'or':
      return op.args.some((arg) => Boolean(evaluate(arg, get)));
    case 'not':
      return !evaluate(op.arg, get);
    case 'compare': {
      const order = compare(evaluate(op.left, get), evaluate(op.right, get));
      if (order === null) return false;
      if (op.op === 'eq') return order === 0;
      if (op.op === 'gt') return order > 0;
      if (op.op === 'gte') return order >= 0;
      if (op.op === 'lt') return order < 0;
      return order <= 0;
    }
    case 'in': {
      const left = evaluate(op.left, get);
      return op.list.some((item) => compare(left, evaluate(item, get)) === 0);
    }
    case 'contains':
      return contains(evaluate(op.input, get), evaluate(op.substr, get), op.caseInsensitive);
  }
}

/** A value for sorting: numbers and booleans (1/0) as numbers, strings as they are, else null. */
export function sortableValue(value: unknown): number | string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return value;
  return null;
}
