import type { CompareOp, ConvertTarget } from '../../../domain/query/ast.js';
import {
  fitsIndexedValue,
  indexedKey,
  INDEXED_DEPTH,
  PATH_SEPARATOR,
  type ValueColumn,
} from '../../../domain/value-leaves.js';
import { toMicros } from '../../../domain/time.js';
import { InvalidRequestError } from '../../../errors/app-error.js';
import { everyCallUntilFilled, FILL_NAMES, unindexedCalls, type FillName } from './coverage.js';
import { isSimpleSql, type SqlDialect, type SqlParams } from '../core/sql-dialect.js';

/**
 * How compiled operands of the calls query language coerce when compared or converted
 * (docs/spec/calls.md §5.3). Pure SQL-text builders shared by the expression compiler; everything
 * backend-specific goes through the dialect.
 */

/** What an operand evaluates to, which decides how comparisons coerce it. */
export type Kind = 'dynamic' | 'string' | 'number' | 'bool' | 'datetime';

export interface Compiled {
  kind: Kind;
  /** SQL of the natural value; for `dynamic` the text rendering; for `bool` a SQL boolean. */
  sql: string;
  /** For dynamic operands: the JSON column and path, for numeric/boolean conversions. */
  json?: { column: string; path: string[] };
}

export type LiteralValue = string | number | boolean | null;

export interface ExprContext {
  d: SqlDialect;
  p: SqlParams;
  /** The project the query reads, when the call indexer covers it: lets an equality use `call_values`. */
  projectId?: string;
  /**
   * Whether the fill `name` is done for the project (call-indexes/entry-fills.ts; a hint, cached): the leaves
   * of `output` and `attributes` are read only then.
   */
  filled?: (name: FillName) => boolean;
}

/**
 * For `inputs.<a>[.<b>] == "text"` (and the same of `output` and `attributes`): the candidate calls,
 * or null when the index cannot answer. They are the calls whose column holds that string there
 * according to `call_values`, the calls the call indexer has not reached yet (after the project's
 * mark) and, when no mark covers the project, every call: the same candidates as the substring
 * index's (calls-query/coverage.ts `unindexedCalls`). The leaves of `output` and `attributes` are a fill
 * (call-indexes/entry-fills.ts): until it is done for the project, every call is a candidate too. The set
 * may hold more calls than match (it is ANDed with the exact comparison), never fewer: so only for
 * plain columns (no ref expansion), keys that are not array positions, and a literal that only a
 * string leaf renders as (not empty, not the JSON text of a number, boolean, object or array;
 * docs/spec/calls.md §5.3).
 */
function indexedEquality(ctx: ExprContext, left: Compiled, value: string): string | null {
  const { column, path } = json(left);
  const indexed = readableValueKey(ctx, column, path, value);
  if (indexed === null) return null;
  const { p } = ctx;
  const project = p.add(ctx.projectId!);
  const unfilled = indexed.fill === null ? '' : `\n    UNION ALL ${everyCallUntilFilled(project, indexed.fill)}`;
  return `c.id IN (SELECT v.call_id FROM call_values v WHERE v.project_id = ${project} AND v.path = ${p.add(indexed.key)} AND v.value = ${p.add(value)}
    UNION ALL ${unindexedCalls('id', project)}${unfilled})`;
}

/**
 * `valueIndexKey` where the query may read the index: the indexer covers the project, and the fill of
 * the column's leaves, if any, is done (`ExprContext.filled`).
 */
export function readableValueKey(
  { projectId, filled }: ExprContext,
  column: string,
  path: readonly string[],
  value: string,
): { key: string; fill: FillName | null } | null {
  const indexed = projectId === undefined ? null : valueIndexKey(column, path, value);
  if (indexed === null || (indexed.fill !== null && filled?.(indexed.fill) !== true)) return null;
  return indexed;
}

/** The columns `call_values` holds the leaves of, and the fill that completes each (null: none needed). */
const VALUE_COLUMNS: Readonly<Record<string, { name: ValueColumn; fill: FillName | null }>> = {
  'c.inputs': { name: 'inputs', fill: null },
  'c.output': { name: 'output', fill: FILL_NAMES.outputValues },
  'c.attributes': { name: 'attributes', fill: FILL_NAMES.attributeValues },
};

/**
 * The `call_values.path` under which `column` (SQL, `c.inputs`) at `path` equal to `value` is
 * indexed, and the fill that completes those leaves; null when it is not indexed.
 */
function valueIndexKey(
  column: string,
  path: readonly string[],
  value: string,
): { key: string; fill: FillName | null } | null {
  const indexed = VALUE_COLUMNS[column];
  if (indexed === undefined) return null;
  if (path.length === 0 || path.length > INDEXED_DEPTH || path.some((segment) => /^\d+$/.test(segment))) return null;
  if (!indexedKey(indexed.name, path[0]!)) return null;
  if (value === '' || !fitsIndexedValue(value) || parsesAsJson(value)) return null;
  return { key: [indexed.name, ...path].join(PATH_SEPARATOR), fill: indexed.fill };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const OP_SQL: Record<CompareOp, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };
export const FLIPPED: Record<CompareOp, CompareOp> = { eq: 'eq', gt: 'lt', gte: 'lte', lt: 'gt', lte: 'gte' };

const json = (c: Compiled): { column: string; path: string[] } => c.json!;

/** The operand as a number for numeric comparison, or null when it has no numeric reading. */
function asNumber({ d, p }: ExprContext, c: Compiled): string | null {
  if (c.kind === 'number') return c.sql;
  if (c.kind === 'bool') return d.boolToInt(c.sql);
  if (c.kind === 'dynamic') return d.jsonNumber(json(c).column, json(c).path, p);
  return null;
}

/** `left <op> literal` with the coercions of docs/spec/calls.md §5.3; NULL (unknown) where kinds do not mix. */
export function compareToLiteral(ctx: ExprContext, op: CompareOp, left: Compiled, value: LiteralValue): string {
  const { d, p } = ctx;
  const sqlOp = OP_SQL[op];
  if (value === null) {
    // only `$eq [x, null]` asks "is null"; dynamic fields are never null (docs/spec/calls.md §5.3)
    if (op !== 'eq') return 'NULL';
    return left.kind === 'dynamic' ? d.falseLiteral : `(${left.sql} IS NULL)`;
  }
  const asInt = (v: boolean | number): number => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
  switch (left.kind) {
    case 'dynamic': {
      const { column, path } = json(left);
      if (typeof value === 'number') return `(${d.jsonNumber(column, path, p)} ${sqlOp} ${p.add(value)})`;
      if (typeof value === 'boolean') return `(${d.jsonBool(column, path, p)} ${sqlOp} ${asInt(value)})`;
      const indexed = op === 'eq' ? indexedEquality(ctx, left, value) : null;
      const exact = `(${left.sql} ${sqlOp} ${p.add(value)})`;
      return indexed ? `(${indexed} AND ${exact})` : exact;
    }
    case 'datetime': {
      if (typeof value === 'boolean') return 'NULL';
      // a number is Unix seconds, a string ISO 8601; an unparseable string is the caller's error (docs/spec/calls.md §6.2)
      const micros = toMicros(value);
      if (micros === null) throw new InvalidRequestError(`Invalid datetime literal: ${JSON.stringify(value)}`);
      return `(${left.sql} ${sqlOp} ${p.add(micros)})`;
    }
    case 'string':
      return typeof value === 'string' ? `(${left.sql} ${sqlOp} ${p.add(value)})` : 'NULL';
    case 'number':
      return typeof value === 'string' ? 'NULL' : `(${left.sql} ${sqlOp} ${p.add(asInt(value))})`;
    case 'bool':
      return typeof value === 'string' ? 'NULL' : `(${d.boolToInt(left.sql)} ${sqlOp} ${p.add(asInt(value))})`;
  }
}

/** `left <op> right` for two non-literal operands. */
export function compareOperands(ctx: ExprContext, op: CompareOp, left: Compiled, right: Compiled): string {
  const { d, p } = ctx;
  if (right.kind === 'dynamic' && left.kind !== 'dynamic') return compareOperands(ctx, FLIPPED[op], right, left);
  const sqlOp = OP_SQL[op];
  if (left.kind === 'dynamic') {
    if (right.kind === 'dynamic' || right.kind === 'string') return `(${left.sql} ${sqlOp} ${right.sql})`;
    if (right.kind === 'number') return `(${asNumber(ctx, left)} ${sqlOp} ${right.sql})`;
    if (right.kind === 'bool')
      return `(${d.jsonBool(json(left).column, json(left).path, p)} ${sqlOp} ${d.boolToInt(right.sql)})`;
    return 'NULL';
  }
  if (left.kind === right.kind && left.kind !== 'bool') return `(${left.sql} ${sqlOp} ${right.sql})`;
  const l = asNumber(ctx, left);
  const r = asNumber(ctx, right);
  return l !== null && r !== null ? `(${l} ${sqlOp} ${r})` : 'NULL';
}

/** `$convert` (docs/spec/calls.md §5.3 table): the converted operand. */
export function convertOperand(ctx: ExprContext, input: Compiled, to: ConvertTarget): Compiled {
  const { d, p } = ctx;
  switch (to) {
    case 'double':
      if (input.kind === 'dynamic')
        return { kind: 'number', sql: d.jsonNumber(json(input).column, json(input).path, p) };
      if (input.kind === 'string') return { kind: 'number', sql: d.textToDouble(input.sql) };
      if (input.kind === 'bool') return { kind: 'number', sql: d.boolToInt(input.sql) };
      if (input.kind === 'datetime') return { kind: 'number', sql: `(${input.sql} / 1000000.0)` };
      return { kind: 'number', sql: `(${input.sql} * 1.0)` };
    case 'int':
      if (input.kind === 'dynamic' || input.kind === 'string') return { kind: 'number', sql: d.textToInt(input.sql) };
      if (input.kind === 'bool') return { kind: 'number', sql: d.boolToInt(input.sql) };
      // integer division truncates toward zero in every supported backend
      if (input.kind === 'datetime') return { kind: 'number', sql: `(${input.sql} / 1000000)` };
      return { kind: 'number', sql: d.truncate(input.sql) };
    case 'bool': {
      if (input.kind === 'dynamic' || input.kind === 'string') return { kind: 'number', sql: d.textToBool(input.sql) };
      if (input.kind === 'bool') return { kind: 'number', sql: d.boolToInt(input.sql) };
      if (input.kind === 'datetime') return { kind: 'number', sql: 'NULL' };
      const numberToBool = (x: string): string => `(CASE WHEN ${x} >= 0 AND ${x} <= 255 THEN ${d.truncate(x)} END)`;
      // the input is bound once: inline, each nested conversion held three copies of it (issue 17)
      return {
        kind: 'number',
        sql: isSimpleSql(input.sql) ? numberToBool(input.sql) : d.bind(input.sql, numberToBool, p),
      };
    }
    case 'string':
      return { kind: 'string', sql: toText(ctx, input) };
    case 'exists':
      if (input.kind === 'dynamic') return { kind: 'bool', sql: d.jsonExists(json(input).column, json(input).path, p) };
      return { kind: 'bool', sql: `(${input.sql} IS NOT NULL)` };
  }
}

/** The text form of an operand: numbers canonical, booleans 1/0, instants ISO 8601 (docs/spec/calls.md §1). */
export function toText({ d }: ExprContext, c: Compiled): string {
  switch (c.kind) {
    case 'dynamic':
    case 'string':
      return c.sql;
    case 'number':
      return d.numberToText(c.sql);
    case 'bool':
      return d.numberToText(d.boolToInt(c.sql));
    case 'datetime':
      return d.microsToText(c.sql);
  }
}
