import type { CallField } from '../../domain/call-fields.js';
import type { CompareOp, Operand, Operation } from '../../domain/query/ast.js';
import { toMicros } from '../../domain/time.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import type { SqlDialect, SqlParams } from './sql-dialect.js';

/**
 * Compiles the calls query language (calls spec §5.1–5.3) to a SQL boolean over the `calls`
 * table aliased `c`. SQL NULL carries the spec's three-valued logic.
 */

/** What an operand evaluates to, which decides how comparisons coerce it. */
type Kind = 'dynamic' | 'string' | 'number' | 'bool' | 'datetime';

interface Compiled {
  kind: Kind;
  /** SQL of the natural value; for `dynamic` the text rendering; for `bool` a SQL boolean. */
  sql: string;
  /** For dynamic operands: the JSON column and path, for numeric/boolean conversions. */
  json?: { column: string; path: string[] };
  /** For columns: whether the value may be NULL-tested directly. */
  nullable?: boolean;
}

type LiteralValue = string | number | boolean | null;

const DERIVED_STATUS = `CASE WHEN c.exception IS NOT NULL THEN 'error' WHEN c.ended_at IS NULL THEN 'running'
  WHEN COALESCE(json_status_errors, 0) > 0 THEN 'descendant_error' ELSE 'success' END`;

const OP_SQL: Record<CompareOp, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };
const FLIPPED: Record<CompareOp, CompareOp> = { eq: 'eq', gt: 'lt', gte: 'lte', lt: 'gt', lte: 'gte' };

export class CallsExprCompiler {
  constructor(
    private readonly d: SqlDialect,
    private readonly p: SqlParams,
  ) {}

  /** SQL boolean for a whole `$expr`. */
  condition(node: Operand<CallField>): string {
    if (node.kind === 'literal') return this.#truthyLiteral(this.#literal(node.value));
    const compiled = this.operand(node);
    return this.#truthy(compiled);
  }

  /** The expressions that order rows by one sort key (calls spec §5.5). */
  sortTerms(field: CallField, direction: 'asc' | 'desc'): string[] {
    const dir = direction === 'asc' ? 'ASC' : 'DESC';
    if (field.kind === 'json') {
      const exists = this.d.jsonExists(`c.${field.column}`, field.path, this.p);
      return [
        `CASE WHEN ${exists} THEN 0 ELSE 1 END ASC`,
        `${this.d.jsonNumber(`c.${field.column}`, field.path, this.p)} ${dir} NULLS LAST`,
        `${this.d.jsonRender(`c.${field.column}`, field.path, this.p)} ${dir}`,
      ];
    }
    const compiled = this.#field(field);
    return [`${compiled.sql} ${dir} NULLS LAST`];
  }

  operand(node: Operand<CallField>): Compiled {
    switch (node.kind) {
      case 'literal':
        return this.#literalOperand(this.#literal(node.value));
      case 'field':
        return this.#field(node.field);
      case 'convert':
        return this.#convert(this.operand(node.input), node.to);
      default:
        return { kind: 'bool', sql: this.#operation(node) };
    }
  }

  #operation(node: Operation<CallField>): string {
    switch (node.kind) {
      case 'and':
      case 'or': {
        const parts = node.args.map((arg) => this.condition(arg));
        return parts.length === 1 ? parts[0] : `(${parts.join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
      }
      case 'not':
        return `(NOT ${this.#notOperand(node.arg)})`;
      case 'compare':
        return this.#compare(node.op, node.left, node.right);
      case 'in':
        return this.#in(node.left, node.list);
      case 'contains':
        return this.#contains(node);
    }
  }

  /** `$not` keeps NULL for unknown comparisons; a non-boolean operand is first made truthy. */
  #notOperand(arg: Operand<CallField>): string {
    if (arg.kind === 'literal') return this.#truthyLiteral(this.#literal(arg.value));
    return this.#truthy(this.operand(arg));
  }

  #field(field: CallField): Compiled {
    switch (field.kind) {
      case 'column':
        if (field.type === 'datetime') return { kind: 'datetime', sql: `c.${field.name}`, nullable: true };
        return { kind: field.type === 'int' ? 'number' : 'string', sql: `c.${field.name}`, nullable: true };
      case 'json':
        return {
          kind: 'dynamic',
          sql: this.d.jsonRender(`c.${field.column}`, field.path, this.p),
          json: { column: `c.${field.column}`, path: field.path },
        };
      case 'derived':
        return this.#derived(field.name);
      case 'feedback':
        throw new InvalidRequestError('Filtering and sorting on feedback fields is not supported yet');
    }
  }

  #derived(name: 'status' | 'latency_ms' | 'trace_name'): Compiled {
    if (name === 'status') {
      const errors = this.d.jsonNumber('c.summary', ['status_counts', 'error'], this.p);
      return { kind: 'string', sql: DERIVED_STATUS.replace('json_status_errors', errors) };
    }
    if (name === 'latency_ms') {
      // floor((ended - started) / 1 ms) on microsecond integers, NULL while running
      return { kind: 'number', sql: `(CASE WHEN c.ended_at IS NULL THEN NULL ELSE ((c.ended_at - c.started_at) - (((c.ended_at - c.started_at) % 1000 + 1000) % 1000)) / 1000 END)` };
    }
    return { kind: 'string', sql: `COALESCE(NULLIF(c.display_name, ''), c.op_display_name, c.op_name)` };
  }

  #literal(value: unknown): LiteralValue {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw new InvalidRequestError('Object and array literals cannot be used in a query expression');
  }

  #literalOperand(value: LiteralValue): Compiled {
    if (value === null) return { kind: 'string', sql: 'NULL' };
    if (typeof value === 'boolean') return { kind: 'bool', sql: value ? this.d.trueLiteral : this.d.falseLiteral };
    return { kind: typeof value === 'number' ? 'number' : 'string', sql: this.p.add(value) };
  }

  #truthyLiteral(value: LiteralValue): string {
    const truthy = value === true || (typeof value === 'number' && value !== 0);
    return truthy ? this.d.trueLiteral : this.d.falseLiteral;
  }

  /** Our choice (spec §5.3): true and non-zero numbers count as true, everything else as false. */
  #truthy(c: Compiled): string {
    switch (c.kind) {
      case 'bool':
        return c.sql;
      case 'number':
        return `COALESCE(${c.sql} <> 0, ${this.d.falseLiteral})`;
      case 'dynamic': {
        const { column, path } = c.json!;
        return `COALESCE(${this.d.jsonBool(column, path, this.p)} <> 0, ${this.d.falseLiteral})`;
      }
      default:
        return this.d.falseLiteral;
    }
  }

  #convert(input: Compiled, to: 'double' | 'string' | 'int' | 'bool' | 'exists'): Compiled {
    const d = this.d;
    const text = (c: Compiled): string => (c.kind === 'number' ? d.numberToText(c.sql) : c.kind === 'bool' ? d.boolToInt(c.sql) : c.sql);
    switch (to) {
      case 'double':
        if (input.kind === 'dynamic') return { kind: 'number', sql: d.jsonNumber(input.json!.column, input.json!.path, this.p) };
        if (input.kind === 'string') return { kind: 'number', sql: d.textToDouble(input.sql) };
        if (input.kind === 'bool') return { kind: 'number', sql: d.boolToInt(input.sql) };
        if (input.kind === 'datetime') return { kind: 'number', sql: `(${input.sql} / 1000000.0)` };
        return { kind: 'number', sql: `(${input.sql} * 1.0)` };
      case 'int':
        if (input.kind === 'dynamic' || input.kind === 'string') return { kind: 'number', sql: d.textToInt(input.sql) };
        if (input.kind === 'bool') return { kind: 'number', sql: d.boolToInt(input.sql) };
        if (input.kind === 'datetime') return { kind: 'number', sql: `(${input.sql} / 1000000)` };
        return { kind: 'number', sql: `CAST(${input.sql} AS INTEGER)` };
      case 'bool':
        if (input.kind === 'dynamic' || input.kind === 'string') return { kind: 'number', sql: d.textToBool(input.sql) };
        if (input.kind === 'bool') return { kind: 'number', sql: d.boolToInt(input.sql) };
        return { kind: 'number', sql: `(CASE WHEN ${input.sql} >= 0 AND ${input.sql} <= 255 THEN CAST(${input.sql} AS INTEGER) END)` };
      case 'string':
        if (input.kind === 'dynamic') return { kind: 'string', sql: input.sql };
        return { kind: 'string', sql: text(input) };
      case 'exists':
        if (input.kind === 'dynamic') return { kind: 'bool', sql: d.jsonExists(input.json!.column, input.json!.path, this.p) };
        if (input.nullable) return { kind: 'bool', sql: `(${input.sql} IS NOT NULL)` };
        return { kind: 'bool', sql: d.trueLiteral };
    }
  }

  #compare(op: CompareOp, leftNode: Operand<CallField>, rightNode: Operand<CallField>): string {
    const leftLit = leftNode.kind === 'literal' ? { value: this.#literal(leftNode.value) } : null;
    const rightLit = rightNode.kind === 'literal' ? { value: this.#literal(rightNode.value) } : null;
    if (leftLit && !rightLit) return this.#compare(FLIPPED[op], rightNode, leftNode);
    const left = this.operand(leftNode);
    if (rightLit) return this.#compareToLiteral(op, left, rightLit.value);
    return this.#compareOperands(op, left, this.operand(rightNode));
  }

  #compareToLiteral(op: CompareOp, left: Compiled, value: LiteralValue): string {
    const sqlOp = OP_SQL[op];
    if (value === null) {
      if (op !== 'eq') return 'NULL';
      if (left.kind === 'dynamic') return this.d.falseLiteral;
      return `(${left.sql} IS NULL)`;
    }
    switch (left.kind) {
      case 'dynamic': {
        const { column, path } = left.json!;
        if (typeof value === 'number') return `(${this.d.jsonNumber(column, path, this.p)} ${sqlOp} ${this.p.add(value)})`;
        if (typeof value === 'boolean') return `(${this.d.jsonBool(column, path, this.p)} ${sqlOp} ${value ? 1 : 0})`;
        return `(${left.sql} ${sqlOp} ${this.p.add(value)})`;
      }
      case 'datetime': {
        const micros = toMicros(value as string | number);
        if (typeof value === 'boolean') return 'NULL';
        if (micros === null) throw new InvalidRequestError(`Invalid datetime literal: ${JSON.stringify(value)}`);
        return `(${left.sql} ${sqlOp} ${this.p.add(micros)})`;
      }
      case 'string':
        return typeof value === 'string' ? `(${left.sql} ${sqlOp} ${this.p.add(value)})` : 'NULL';
      case 'number':
        if (typeof value === 'number') return `(${left.sql} ${sqlOp} ${this.p.add(value)})`;
        if (typeof value === 'boolean') return `(${left.sql} ${sqlOp} ${value ? 1 : 0})`;
        return 'NULL';
      case 'bool':
        if (typeof value === 'boolean' || typeof value === 'number') {
          return `(${this.d.boolToInt(left.sql)} ${sqlOp} ${this.p.add(typeof value === 'boolean' ? (value ? 1 : 0) : value)})`;
        }
        return 'NULL';
    }
  }

  #compareOperands(op: CompareOp, left: Compiled, right: Compiled): string {
    if (right.kind === 'dynamic' && left.kind !== 'dynamic') return this.#compareOperands(FLIPPED[op], right, left);
    const sqlOp = OP_SQL[op];
    const asNumber = (c: Compiled): string | null => {
      if (c.kind === 'number') return c.sql;
      if (c.kind === 'bool') return this.d.boolToInt(c.sql);
      if (c.kind === 'dynamic') return this.d.jsonNumber(c.json!.column, c.json!.path, this.p);
      return null;
    };
    if (left.kind === 'dynamic') {
      if (right.kind === 'dynamic' || right.kind === 'string') return `(${left.sql} ${sqlOp} ${right.sql})`;
      if (right.kind === 'number') return `(${asNumber(left)} ${sqlOp} ${right.sql})`;
      if (right.kind === 'bool') return `(${this.d.jsonBool(left.json!.column, left.json!.path, this.p)} ${sqlOp} ${this.d.boolToInt(right.sql)})`;
      return 'NULL';
    }
    if (left.kind === right.kind && left.kind !== 'bool') return `(${left.sql} ${sqlOp} ${right.sql})`;
    const l = asNumber(left);
    const r = asNumber(right);
    if (l !== null && r !== null) return `(${l} ${sqlOp} ${r})`;
    return 'NULL';
  }

  #in(leftNode: Operand<CallField>, list: Operand<CallField>[]): string {
    if (list.length === 0) return this.d.falseLiteral;
    const left = this.operand(leftNode);
    const literals = list.every((item) => item.kind === 'literal') ? list.map((item) => this.#literal((item as { value: unknown }).value)) : null;
    if (left.kind === 'dynamic' && literals) {
      const nonNull = literals.filter((v) => v !== null);
      const { column, path } = left.json!;
      if (nonNull.length === 0) return 'NULL';
      if (nonNull.every((v) => typeof v === 'number')) return `(${this.d.jsonNumber(column, path, this.p)} IN (${nonNull.map((v) => this.p.add(v)).join(', ')}))`;
      if (nonNull.every((v) => typeof v === 'boolean')) return `(${this.d.jsonBool(column, path, this.p)} IN (${nonNull.map((v) => (v ? 1 : 0)).join(', ')}))`;
      return `(${left.sql} IN (${nonNull.map((v) => this.p.add(String(v))).join(', ')}))`;
    }
    const parts = list.map((item) => {
      if (item.kind === 'literal') return this.#compareToLiteral('eq', left, this.#literal(item.value));
      return this.#compareOperands('eq', left, this.operand(item));
    });
    return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
  }

  #contains(node: Extract<Operation<CallField>, { kind: 'contains' }>): string {
    const text = (operand: Operand<CallField>): string | null => {
      if (operand.kind === 'literal') {
        const value = this.#literal(operand.value);
        return typeof value === 'string' ? this.p.add(value) : null;
      }
      const c = this.operand(operand);
      return c.kind === 'dynamic' || c.kind === 'string' ? c.sql : null;
    };
    let input = text(node.input);
    let substr = text(node.substr);
    if (input === null || substr === null) return this.d.falseLiteral;
    if (node.caseInsensitive) {
      input = this.d.lower(input);
      substr = this.d.lower(substr);
    }
    return node.wholeToken ? this.d.containsToken(input, substr) : this.d.containsText(input, substr);
  }
}
