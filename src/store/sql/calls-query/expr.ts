import type { CallField, CallJsonColumn, DerivedCallField } from '../../../domain/call-fields.js';
import type { CompareOp, Operand, Operation } from '../../../domain/query/ast.js';
import type { ExpandPath } from '../../../domain/ref-expansion.js';
import { REF_PREFIX } from '../../../domain/refs.js';
import { InvalidRequestError } from '../../../errors/app-error.js';
import {
  compareOperands,
  compareToLiteral,
  convertOperand,
  FLIPPED,
  readableValueKey,
  type Compiled,
  type ExprContext,
  type LiteralValue,
} from './expr-values.js';
import { type TextNeedle, isSimpleSql, type SqlDialect, type SqlParams } from '../core/sql-dialect.js';
import type { FillName } from './coverage.js';
import { textIndexNeedle } from './text.js';
import { TRACE_NAME_SQL } from './names.js';

/**
 * Compiles the calls query language (docs/spec/calls.md §5.1–5.3) to a SQL boolean over the `calls`
 * table aliased `c`. SQL NULL carries the spec's three-valued logic: a call matches only when
 * the whole condition is true.
 */

/**
 * `summary.weave.latency_ms`: floor((ended - started) / 1 ms) on microsecond integers, NULL while
 * running. Projects whose call indexes are complete read the stored `c.latency_ms` instead (the
 * writers compute it with calls-query/latency.ts, the same arithmetic).
 */
export const LATENCY_MS_SQL =
  '(CASE WHEN c.ended_at IS NULL THEN NULL ELSE ((c.ended_at - c.started_at) - ((((c.ended_at - c.started_at) % 1000) + 1000) % 1000)) / 1000 END)';

/**
 * `a AND b AND c …` as a balanced tree: SQLite parses a flat chain as one nested expression per
 * operand and refuses past 1,000 levels (SQLITE_MAX_EXPR_DEPTH), while a balanced tree is log2(n) deep.
 */
export function joinTree(parts: string[], op: 'AND' | 'OR'): string {
  if (parts.length === 1) return parts[0]!;
  const mid = Math.ceil(parts.length / 2);
  return `(${joinTree(parts.slice(0, mid), op)} ${op} ${joinTree(parts.slice(mid), op)})`;
}

type ContainsNode = Extract<Operation<CallField>, { kind: 'contains' }>;

/** What the compiler needs to know about the query beyond the expression. */
export interface CallsExprScope {
  projectId: string;
  /** `expand_columns`, shallowest first: paths whose refs filters and sorts traverse (docs/spec/calls.md §5.6). */
  expand?: readonly ExpandPath[] | null;
  /**
   * Whether the backfill of migration 016 is through the project (call-indexes/backfill.ts): only
   * then does the latency read `calls.latency_ms`.
   */
  backfilled?: boolean;
  /**
   * Whether the call indexer covers the project (call-indexes/text-index.ts `covers`): only then do
   * equalities ask `call_values` and `$contains` the substring index for candidates
   * (calls-query/expr-values.ts, calls-query/text.ts). The candidates' SQL itself adds the calls the
   * indexer has not reached yet, so a stale answer here changes the plan, not the result.
   */
  covered?: boolean;
  /** Whether the fill `name` is done for the project (a hint): `call_values` of `output` and `attributes`. */
  filled?: (name: FillName) => boolean;
}

export class CallsExprCompiler {
  readonly #ctx: ExprContext;

  constructor(
    private readonly d: SqlDialect,
    private readonly p: SqlParams,
    private readonly scope: CallsExprScope,
  ) {
    this.#ctx = { d, p, projectId: scope.covered === true ? scope.projectId : undefined, filled: scope.filled };
  }

  /** SQL boolean for a whole `$expr` or for one part of `$and`/`$or`/`$not`. */
  condition(node: Operand<CallField>): string {
    if (node.kind === 'literal') return this.#truthyLiteral(this.#literal(node.value));
    return this.#truthy(this.operand(node));
  }

  /** The expressions that order rows by one sort key (docs/spec/calls.md §5.5). */
  sortTerms(field: CallField, direction: 'asc' | 'desc'): string[] {
    const dir = direction === 'asc' ? 'ASC' : 'DESC';
    if (field.kind === 'json' || (field.kind === 'feedback' && typeof field.target !== 'string')) {
      const { base, rest } =
        field.kind === 'json' ? this.#jsonBase(field.column, field.path) : this.#feedbackJson(field);
      // present-and-non-null first whatever the direction, then numbers numerically, then the text
      return [
        `CASE WHEN ${this.d.jsonExists(base, rest, this.p)} THEN 0 ELSE 1 END ASC`,
        `${this.d.jsonNumber(base, rest, this.p)} ${dir} NULLS LAST`,
        `${this.d.jsonRender(base, rest, this.p)} ${dir}`,
      ];
    }
    // visible calls always have started_at: leaving NULLS LAST out there lets PostgreSQL walk its
    // (project_id, started_at DESC, id DESC) index in both directions instead of sorting
    const neverNull = field.kind === 'column' && field.name === 'started_at';
    return [`${this.#field(field).sql} ${dir}${neverNull ? '' : ' NULLS LAST'}`];
  }

  /**
   * Whether `node` holds, as itself or as a part of a top-level `$and`, an equality that the
   * `call_values` index answers (calls-query/expr-values.ts valueIndexKey), or a `$contains` (or an
   * `$or` of them) that the substring index answers (calls-query/text.ts): the query then reads a
   * few ids.
   */
  narrowsByValueIndex(node: Operand<CallField>): boolean {
    if (node.kind === 'and') return node.args.some((arg) => this.narrowsByValueIndex(arg));
    if (node.kind === 'contains' || node.kind === 'or') return this.#textSearch(node) !== null;
    if (node.kind !== 'compare' || node.op !== 'eq') return false;
    const [field, literal] = node.left.kind === 'field' ? [node.left, node.right] : [node.right, node.left];
    if (field.kind !== 'field' || literal.kind !== 'literal' || typeof literal.value !== 'string') return false;
    if (field.field.kind !== 'json') return false;
    const { base, rest } = this.#jsonBase(field.field.column, field.field.path);
    return readableValueKey(this.#ctx, base, rest, literal.value) !== null;
  }

  /**
   * Whether the few ids come from the substring index alone (no `call_values` equality beside it):
   * on SQLite its candidates are rowids, which the planner looks up only when no index of the
   * project column competes with them (calls-query/select.ts).
   */
  narrowsByTextIndexOnly(node: Operand<CallField>): boolean {
    const parts = node.kind === 'and' ? node.args : [node];
    const byText = (part: Operand<CallField>): boolean => this.#textSearch(part) !== null;
    return parts.some(byText) && !parts.some((part) => !byText(part) && this.narrowsByValueIndex(part));
  }

  operand(node: Operand<CallField>): Compiled {
    switch (node.kind) {
      case 'literal':
        return this.#literalOperand(this.#literal(node.value));
      case 'field':
        return this.#field(node.field);
      case 'convert':
        return convertOperand(this.#ctx, this.operand(node.input), node.to);
      default:
        return { kind: 'bool', sql: this.#operation(node) };
    }
  }

  #operation(node: Operation<CallField>): string {
    switch (node.kind) {
      case 'and':
      case 'or': {
        const search = node.kind === 'or' ? this.#textSearch(node) : null;
        if (search !== null) {
          // every arm is a `$contains` the index answers: one search for the union of their candidates
          // (each arm's matches are among its own), then the arms' exact tests, so the result is the scan's
          const exact = joinTree(
            search.arms.map((arm) => this.#containsExact(arm)),
            'OR',
          );
          return `(${this.d.textCandidates(this.scope.projectId, search.needles, this.p)} AND ${exact})`;
        }
        return joinTree(
          node.args.map((arg) => this.condition(arg)),
          node.kind === 'and' ? 'AND' : 'OR',
        );
      }
      case 'not':
        return `(NOT ${this.condition(node.arg)})`;
      case 'compare':
        return this.#compare(node.op, node.left, node.right);
      case 'in':
        return this.#in(node.left, node.list);
      case 'contains':
        return this.#contains(node);
    }
  }

  #field(field: CallField): Compiled {
    const compiled = this.#fieldSql(field);
    this.p.charge(compiled.sql);
    return compiled;
  }

  #fieldSql(field: CallField): Compiled {
    switch (field.kind) {
      case 'column':
        if (field.type === 'datetime') return { kind: 'datetime', sql: `c.${field.name}` };
        return { kind: field.type === 'int' ? 'number' : 'string', sql: `c.${field.name}` };
      case 'json': {
        const { base, rest } = this.#jsonBase(field.column, field.path);
        return { kind: 'dynamic', sql: this.d.jsonRender(base, rest, this.p), json: { column: base, path: rest } };
      }
      case 'derived':
        return this.#derived(field.name);
      case 'feedback':
        return this.#feedbackField(field);
    }
  }

  /**
   * `feedback.[type].payload.<path>` / `.runnable_ref` / `.trigger_ref` (docs/spec/calls.md §5.2): the
   * value in the call's first (oldest) feedback record of that type (`*` = any type); missing
   * (refs: '') when the call has none. The payload compiles like a JSON column (§5.3 semantics).
   */
  #feedbackField(field: Extract<CallField, { kind: 'feedback' }>): Compiled {
    if (typeof field.target === 'string')
      return { kind: 'string', sql: `COALESCE(${this.#firstFeedback(field.feedbackType, `f.${field.target}`)}, '')` };
    const { base, rest } = this.#feedbackJson(field);
    return { kind: 'dynamic', sql: this.d.jsonRender(base, rest, this.p), json: { column: base, path: rest } };
  }

  #feedbackJson(field: Extract<CallField, { kind: 'feedback' }>): { base: string; rest: string[] } {
    return {
      base: this.#firstFeedback(field.feedbackType, 'f.payload'),
      rest: typeof field.target === 'string' ? [] : field.target.payload,
    };
  }

  #firstFeedback(feedbackType: string, column: string): string {
    const { p } = this;
    const ofType = feedbackType === '*' ? '' : ` AND f.feedback_type = ${p.add(feedbackType)}`;
    // the project as a parameter: Citus runs the statement on one shard only when every table is filtered by it
    return `(SELECT ${column} FROM feedback f WHERE f.project_id = ${p.add(this.scope.projectId)}
      AND f.weave_ref = ${p.add(`${REF_PREFIX}${this.scope.projectId}/call/`)} || c.id${ofType} ORDER BY f.created_at ASC, f.id ASC LIMIT 1)`;
  }

  /**
   * The JSON expression a path is evaluated in and the rest of the path. Each `expand_columns`
   * entry on the way swaps the value there for the object its ref names, or keeps the stored
   * JSON when the ref does not resolve (docs/spec/calls.md §5.6).
   */
  #jsonBase(column: CallJsonColumn, path: string[]): { base: string; rest: string[] } {
    const { d, p } = this;
    let base = `c.${column}`;
    let consumed = 0;
    for (const e of this.scope.expand ?? []) {
      if (e.column !== column || e.path.length <= consumed || e.path.length > path.length) continue;
      if (e.path.some((segment, i) => segment !== path[i])) continue;
      const relative = e.path.slice(consumed);
      // the level below is bound once: inline, each level held four copies of the one before (issue 17)
      const level = (below: string): string =>
        `COALESCE(${this.#resolvedObject(d.jsonRender(below, relative, p))}, ${d.jsonText(below, relative, p)})`;
      base = isSimpleSql(base) ? level(base) : d.bind(base, level, p);
      consumed = e.path.length;
    }
    return { base, rest: path.slice(consumed) };
  }

  /** The value (JSON text) of the live object version a ref without an extra path names (domain/ref-expansion.ts); NULL otherwise. */
  #resolvedObject(refSql: string): string {
    const { d, p } = this;
    return d.bind(
      refSql,
      (ref) => {
        const lookups = (['object', 'op'] as const).map((kind) => {
          const prefix = `${REF_PREFIX}${this.scope.projectId}/${kind}/`;
          const rest = d.textFrom(ref, [...prefix].length + 1);
          return `(SELECT o.val FROM object_versions o WHERE o.project_id = ${p.add(this.scope.projectId)} AND o.deleted_at IS NULL
        AND ${d.startsWith(ref, prefix, p)} AND o.object_id = ${d.textBefore(rest, ':', p)} AND o.digest = ${d.textAfter(rest, ':', p)})`;
        });
        return `COALESCE(${lookups.join(', ')})`;
      },
      p,
    );
  }

  /** `summary.weave.*` computed from the row exactly as reads derive it (docs/spec/calls.md §2.6). */
  #derived(name: DerivedCallField): Compiled {
    // one expression per store (calls-query/status.ts), which the `call_status` entries hold too
    if (name === 'status') return { kind: 'string', sql: this.d.derivedStatus };
    // query-only: the UI's token total (calls-query/tokens.ts), never in the returned summary
    if (name === 'total_tokens') return { kind: 'number', sql: this.d.derivedTokens };
    // query-only: the UI's cost from the project's prices now (calls-query/cost.ts)
    if (name === 'total_cost') return { kind: 'number', sql: this.d.derivedCost(this.p) };
    if (name === 'latency_ms')
      return { kind: 'number', sql: this.scope.backfilled === true ? 'c.latency_ms' : LATENCY_MS_SQL };
    // the text the `call_trace_names` entries hold too (calls-query/names.ts)
    return { kind: 'string', sql: TRACE_NAME_SQL };
  }

  #literal(value: unknown): LiteralValue {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      return value;
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

  /** Our choice (docs/spec/calls.md §5.3): as a condition, true and non-zero numbers count as true, everything else as false. */
  #truthy(c: Compiled): string {
    const { d, p } = this;
    switch (c.kind) {
      case 'bool':
        return c.sql;
      case 'number':
        return `COALESCE(${c.sql} <> 0, ${d.falseLiteral})`;
      case 'dynamic': {
        const { column, path } = c.json!;
        const kind = d.jsonKind(column, path, p);
        return `(CASE ${kind} WHEN 'true' THEN ${d.trueLiteral} WHEN 'number' THEN COALESCE(${d.jsonNumber(column, path, p)} <> 0, ${d.falseLiteral}) ELSE ${d.falseLiteral} END)`;
      }
      default:
        return d.falseLiteral;
    }
  }

  #compare(op: CompareOp, leftNode: Operand<CallField>, rightNode: Operand<CallField>): string {
    if (leftNode.kind === 'literal' && rightNode.kind !== 'literal')
      return this.#compare(FLIPPED[op], rightNode, leftNode);
    const left = this.operand(leftNode);
    if (rightNode.kind === 'literal') return compareToLiteral(this.#ctx, op, left, this.#literal(rightNode.value));
    return compareOperands(this.#ctx, op, left, this.operand(rightNode));
  }

  /** `$in`: typed by its literals for dynamic fields (docs/spec/calls.md §5.3); otherwise an OR of `$eq`. An empty list is false. */
  #in(leftNode: Operand<CallField>, list: Operand<CallField>[]): string {
    if (list.length === 0) return this.d.falseLiteral;
    const left = this.operand(leftNode);
    const literals = list.every((item) => item.kind === 'literal')
      ? list.map((item) => this.#literal((item as { value: unknown }).value))
      : null;
    if (left.kind === 'dynamic' && literals) return this.#dynamicIn(left, literals);
    const parts = (bound: Compiled): string[] =>
      list.map((item) => {
        if (item.kind !== 'literal') return compareOperands(this.#ctx, 'eq', bound, this.operand(item));
        const value = this.#literal(item.value);
        // a null entry is a comparison with null (unknown), not an "is null" test
        return value === null ? 'NULL' : compareToLiteral(this.#ctx, 'eq', bound, value);
      });
    if (list.length === 1) return parts(left)[0]!;
    // the left side once, not once per entry: nested `$in`s would multiply it (issue 17)
    if (left.kind === 'dynamic' || isSimpleSql(left.sql)) return joinTree(parts(left), 'OR');
    return this.d.bind(left.sql, (sql) => joinTree(parts({ ...left, sql }), 'OR'), this.p);
  }

  #dynamicIn(left: Compiled, literals: LiteralValue[]): string {
    const { d, p } = this;
    const values = literals.filter((v): v is string | number | boolean => v !== null);
    const { column, path } = left.json!;
    if (values.length === 0) return 'NULL';
    if (values.every((v) => typeof v === 'number'))
      return `(${d.jsonNumber(column, path, p)} IN (${values.map((v) => p.add(v)).join(', ')}))`;
    if (values.every((v) => typeof v === 'boolean'))
      return `(${d.jsonBool(column, path, p)} IN (${values.map((v) => (v ? 1 : 0)).join(', ')}))`;
    return `(${left.sql} IN (${values.map((v) => p.add(String(v))).join(', ')}))`;
  }

  /** `$contains` / `$containsToken`: false unless both sides are strings (docs/spec/calls.md §5.3), never unknown. */
  #contains(node: ContainsNode): string {
    const exact = this.#containsExact(node);
    // a whole token is a substring too, so the same candidates hold every match of both forms
    const search = this.#textSearch(node);
    if (search === null) return exact;
    return `(${this.d.textCandidates(this.scope.projectId, search.needles, this.p)} AND ${exact})`;
  }

  /** The exact test of `$contains`, without the index's candidates. */
  #containsExact(node: ContainsNode): string {
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
    const test = node.wholeToken ? this.d.containsToken(input, substr) : this.d.containsText(input, substr);
    return `COALESCE(${test}, ${this.d.falseLiteral})`;
  }

  /**
   * What the substring index is searched for when it answers `node`: a `$contains` it answers
   * (`#textNeedle`), or an `$or` all of whose arms are such (the search box's text in `inputs` or
   * `output`, web/src/lib/query.ts); null otherwise.
   */
  #textSearch(node: Operand<CallField>): { arms: ContainsNode[]; needles: TextNeedle[] } | null {
    const arms: ContainsNode[] = [];
    const needles: TextNeedle[] = [];
    for (const arm of node.kind === 'or' ? node.args : [node]) {
      if (arm.kind !== 'contains') return null;
      const needle = this.#textNeedle(arm);
      if (needle === null) return null;
      arms.push(arm);
      needles.push({ needle, caseInsensitive: arm.caseInsensitive });
    }
    return arms.length > 0 ? { arms, needles } : null;
  }

  /**
   * What the substring index is searched for when it can answer this `$contains`: a string
   * literal in a field of `inputs` or `output` as stored (not through `expand_columns`, whose
   * values the index does not hold); null otherwise.
   */
  #textNeedle(node: ContainsNode): string | null {
    if (this.scope.covered !== true) return null;
    const { input, substr } = node;
    if (input.kind !== 'field' || input.field.kind !== 'json') return null;
    const column = input.field.column;
    if (column !== 'inputs' && column !== 'output') return null;
    if ((this.scope.expand ?? []).some((e) => e.column === column)) return null;
    if (substr.kind !== 'literal' || typeof substr.value !== 'string') return null;
    return textIndexNeedle(substr.value, node.caseInsensitive);
  }
}
