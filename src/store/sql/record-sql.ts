import type { CallField } from '../../domain/call-fields.js';
import { ObjectInvalidRequestError } from '../../errors/object-errors.js';
import type { Operand } from '../../domain/query/ast.js';
import type { RecordField, RecordQuery } from '../feedback-types.js';
import type { CompiledSql } from './core/sql-tag.js';
import { CallsExprCompiler } from './calls-query/expr.js';
import { checkSqlBudget, SqlParams, type SqlDialect } from './core/sql-dialect.js';
import { runAll, type Tx } from './core/sql-tx.js';

/**
 * Queries over the feedback and price tables (docs/spec/objects.md §7.4, §8.3) in the shared query
 * language. The table is aliased `c` so the calls expression compiler can be reused as is: a
 * record column compiles exactly like a call column of the same type (`c.<name>`), and a JSON
 * column exactly like a call JSON column (same §5.3 value semantics).
 */

/** A record field in the calls compiler's terms (only the name and type are read from it). */
function asCallField(field: RecordField): CallField {
  if (field.kind === 'json') return { kind: 'json', column: field.column, path: field.path } as unknown as CallField;
  const type = field.type === 'number' ? 'int' : field.type;
  return { kind: 'column', name: field.name, type } as unknown as CallField;
}

function mapOperand(node: Operand<RecordField>): Operand<CallField> {
  switch (node.kind) {
    case 'literal':
      return node;
    case 'field':
      return { kind: 'field', field: asCallField(node.field) };
    case 'convert':
      return { kind: 'convert', input: mapOperand(node.input), to: node.to };
    case 'and':
    case 'or':
      return { kind: node.kind, args: node.args.map(mapOperand) };
    case 'not':
      return { kind: 'not', arg: mapOperand(node.arg) };
    case 'compare':
      return { kind: 'compare', op: node.op, left: mapOperand(node.left), right: mapOperand(node.right) };
    case 'in':
      return { kind: 'in', left: mapOperand(node.left), list: node.list.map(mapOperand) };
    case 'contains':
      return { ...node, input: mapOperand(node.input), substr: mapOperand(node.substr) };
  }
}

/** `WHERE` conditions (project scope first) and `ORDER BY` for a record query. */
function clauses(q: RecordQuery, extra: string[], d: SqlDialect, p: SqlParams): { where: string; order: string } {
  const compiler = new CallsExprCompiler(d, p, { projectId: q.project_id });
  const conditions = [`c.project_id = ${p.add(q.project_id)}`, ...extra];
  if (q.where) conditions.push(compiler.condition(mapOperand(q.where)));
  const terms = (q.sort_by ?? []).flatMap((key) => compiler.sortTerms(asCallField(key.field), key.direction));
  terms.push('c.created_at ASC', 'c.id ASC');
  return { where: conditions.join(' AND '), order: terms.join(', ') };
}

export function compileRecordSelect(
  table: string,
  q: RecordQuery,
  d: SqlDialect,
  extra: (p: SqlParams) => string[] = () => [],
): CompiledSql {
  const p = new SqlParams(d);
  const { where, order } = clauses(q, extra(p), d, p);
  const sql = `SELECT c.* FROM ${table} c WHERE ${where} ORDER BY ${order} ${d.limitOffset(q.limit ?? null, q.offset ?? null, p)}`;
  checkSqlBudget(sql.length, p.values.length);
  return { sql, params: p.values };
}

export function compileRecordCount(table: string, q: RecordQuery, d: SqlDialect): CompiledSql {
  const p = new SqlParams(d);
  const { where } = clauses({ ...q, sort_by: null }, [], d, p);
  const sql = `SELECT COUNT(*) AS n FROM ${table} c WHERE ${where}`;
  checkSqlBudget(sql.length, p.values.length);
  return { sql, params: p.values };
}

/**
 * `INSERT` of one row that changes nothing when the key exists; column names come from the row's keys. Values of `jsonColumns` (JSON text)
 * pass through `asJson`, for backends whose JSON columns do not take text parameters.
 */
export function compileInsert(
  table: string,
  row: object,
  d: SqlDialect,
  jsonColumns: readonly string[] = [],
  asJson: (sql: string) => string = (sql) => sql,
): CompiledSql {
  const p = new SqlParams(d);
  const entries = Object.entries(row);
  const values = entries.map(([k, v]) => (jsonColumns.includes(k) ? asJson(p.add(v)) : p.add(v)));
  const sql = `INSERT INTO ${table} (${entries.map(([k]) => k).join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT DO NOTHING`;
  return { sql, params: p.values };
}

/** `DELETE` of the project's rows with these ids. */
export function compileDeleteIds(table: string, projectId: string, ids: string[], d: SqlDialect): CompiledSql {
  const p = new SqlParams(d);
  return {
    sql: `DELETE FROM ${table} WHERE project_id = ${p.add(projectId)} AND ${d.inList('id', ids, p)}`,
    params: p.values,
  };
}

/**
 * Runs the inserts (compileInsert: an existing key changes nothing) in the current transaction;
 * one skipped row fails the whole write, rolling back the transaction.
 */
export function* insertAll(statements: CompiledSql[]): Tx<void> {
  const changed = yield* runAll(statements);
  if (changed.some((n) => n === 0))
    throw new ObjectInvalidRequestError('A record with this id already exists in the project');
}
