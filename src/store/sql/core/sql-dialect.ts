import { InvalidRequestError } from '../../../errors/app-error.js';

/**
 * Candidate messages of `agent_span_messages` row `alias` for a case-sensitive substring `needle`: a
 * SQL boolean with the marker U+0002 where `value` is bound, true for at least every message that
 * contains it; null where the index cannot answer (the query then tests every message).
 */
export type MessageCandidates = (alias: string, needle: string) => { sql: string; value: string } | null;

/**
 * What differs between the SQL backends when compiling queries. The compilers in this folder
 * write portable SQL and ask the dialect for everything else (kysely-style capability methods
 * instead of `if (sqlite)` branches).
 *
 * The compilers also assume what every backend must provide underneath: text compares and
 * sorts by code point (UTF-8 bytes; docs/spec/calls.md §5.5 "strings by bytes", so PostgreSQL text
 * columns need `COLLATE "C"`), `NULLS LAST` in ORDER BY, and integer division that truncates.
 */
export interface SqlDialect {
  /**
   * Placeholder for the parameter at 1-based position `index`, bound to `value` (PostgreSQL adds a
   * cast from its type: it cannot infer a parameter's type in every position, e.g. `$1 > $2`).
   */
  placeholder(index: number, value?: unknown): string;
  /**
   * Expressions over a JSON column at a key path (segments are object keys, or array indices
   * when the value there is an array). Each returns SQL:
   * - `jsonRender`: the value as text per docs/spec/calls.md §5.3 (strings unquoted, objects compact JSON,
   *   null or missing → '').
   * - `jsonNumber`: numbers as double, numeric strings parsed, otherwise NULL.
   * - `jsonBool`: true→1, false→0, "true"/"false" strings, integers 0..255 kept, otherwise NULL.
   * - `jsonExists`: a SQL boolean, true iff the path is present and not JSON null.
   */
  jsonRender(column: string, path: string[], p: SqlParams): string;
  jsonNumber(column: string, path: string[], p: SqlParams): string;
  jsonBool(column: string, path: string[], p: SqlParams): string;
  jsonExists(column: string, path: string[], p: SqlParams): string;
  /**
   * The JSON type at the path as text: 'null', 'true', 'false', 'number', 'string', 'array' or
   * 'object'; SQL NULL when the path is missing.
   */
  jsonKind(column: string, path: string[], p: SqlParams): string;
  /** The JSON text of the value at the path (strings quoted), or SQL NULL when missing. */
  jsonText(column: string, path: string[], p: SqlParams): string;
  /** A SQL boolean: some string leaf anywhere inside the JSON column equals one of `exact` or starts with one of `prefixes`. */
  jsonHasString(column: string, exact: string[], prefixes: string[], p: SqlParams): string;
  /** Text → double when it is a decimal number, else NULL. */
  textToDouble(expr: string): string;
  /** Text → integer when it matches `[+-]?digits`, else NULL. */
  textToInt(expr: string): string;
  /** Text → 1/0 for "true"/"false", an integer 0..255 as itself, else NULL. */
  textToBool(expr: string): string;
  /** Number → canonical text (`5.0` → "5"). */
  numberToText(expr: string): string;
  /** Number → integer, truncating toward zero (`CAST` rounds in some backends). */
  truncate(expr: string): string;
  /** Integer microseconds since the epoch → ISO 8601 text as responses write it (`…T10:00:00.250000Z`). */
  microsToText(expr: string): string;
  /** SQL boolean: text `expr` begins with `prefix` (compared by code points, no pattern characters). */
  startsWith(expr: string, prefix: string, p: SqlParams): string;
  /** The text from 1-based character position `start` to the end. */
  textFrom(expr: string, start: number): string;
  /** The text before the first `separator` ('' when there is none). */
  textBefore(expr: string, separator: string, p: SqlParams): string;
  /** The text after the first `separator` (NULL when there is none). */
  textAfter(expr: string, separator: string, p: SqlParams): string;
  /** SQL boolean → 1/0/NULL integer. */
  boolToInt(expr: string): string;
  /** SQL boolean: `needle` occurs in `haystack`. */
  containsText(haystack: string, needle: string): string;
  /** SQL boolean: `token` equals one whole run of letters/digits of `text`. */
  containsToken(text: string, token: string): string;
  /** Unicode-aware lower-casing. */
  lower(expr: string): string;
  /** The substring index of migration 017 (calls-query/text.ts `TextCandidateSql`). */
  textCandidates: TextCandidateSql['textCandidates'];
  /** The agent message search index of migration 037 (sql/agent-message-search.ts). */
  messageCandidates: MessageCandidates;
  /**
   * `summary.weave.status` of the call `c` (docs/spec/calls.md §2.6), free of bound parameters: the
   * same SQL computes the queries' status and writes the `call_status` entries (calls-query/status.ts).
   */
  readonly derivedStatus: string;
  /** `summary.weave.total_tokens` of the call `c`, free of bound parameters (calls-query/tokens.ts). */
  readonly derivedTokens: string;
  /** `summary.weave.total_cost` of the call `c`, from the project's prices (calls-query/cost.ts). */
  derivedCost(p: SqlParams): string;
  /** Byte length of a text expression (0 for NULL). */
  byteLength(expr: string): string;
  /** The SQL boolean literals. */
  readonly trueLiteral: string;
  readonly falseLiteral: string;
  /** Expression giving rows in insertion order. */
  readonly insertionOrder: string;
  /**
   * The same value, hidden from index selection: where a query narrows to a few ids through the
   * `call_values` index, SQLite's planner (without statistics) would rather walk the index of the
   * sort order; a unary `+` there makes it look the ids up. PostgreSQL plans from statistics: identity.
   */
  unindexed(expr: string): string;
  /**
   * Live tail (CallsQuery.changed_after): an upper bound below which every `change_seq` belongs to
   * a finished write, when writes can commit out of `change_seq` order (PostgreSQL); absent where
   * they cannot (SQLite's single writer stamps them in commit order).
   */
  readonly changeHorizon?: string;
  /** `LIMIT`/`OFFSET` clause; `limit` null = unlimited. */
  limitOffset(limit: number | null, offset: number | null, p: SqlParams): string;
  /** SQL boolean: `column` is in `values` (non-empty). */
  inList(column: string, values: readonly unknown[], p: SqlParams): string;
  /**
   * Evaluates `expr` once and hands `use` a name for its value, so a value used several times is
   * written (and computed) once however deeply operands nest (STYLE.md "Generated SQL is bounded
   * by the request"): a scalar subquery over a one-row derived table the planner may not inline.
   */
  bind(expr: string, use: (value: string) => string, p: SqlParams): string;
}

/** A plain column reference (`c.inputs`) or placeholder: cheap to repeat, so never worth binding. */
export const isSimpleSql = (sql: string): boolean =>
  /^(?:[a-z][a-z0-9]*\.[a-z_]+|[@$]p?\d+(?:::[a-z0-9[\]]+)?|\0\d+\0)$/.test(sql);

/**
 * The most SQL one query may compile to (STYLE.md: a query whose SQL passes a size budget is
 * refused with a 400 before it reaches the database). A calls query from the official clients or
 * the UI compiles to a few kilobytes; the parameter cap stays under SQLite's 32,766 variables.
 */
export const SQL_BUDGET = { chars: 1_000_000, params: 30_000 } as const;

/** Throws the 400 of `SQL_BUDGET` when `chars` of SQL or `params` parameters pass it. */
export function checkSqlBudget(chars: number, params: number): void {
  if (chars > SQL_BUDGET.chars)
    throw new InvalidRequestError(
      `Query too large: its SQL would pass the limit of ${SQL_BUDGET.chars} characters; simplify the filter`,
    );
  if (params > SQL_BUDGET.params)
    throw new InvalidRequestError(
      `Query too large: it would bind more than the limit of ${SQL_BUDGET.params} parameters; simplify the filter`,
    );
}

/**
 * The statement `compile` builds, or null where it passes `SQL_BUDGET` or is refused while compiling
 * (`SqlParams.charge`): for a plan that compiles the filter more than once, whose caller then keeps
 * the plan that compiles it once (calls-query/select.ts).
 */
export function withinSqlBudget<T extends { sql: string; params: unknown[] }>(compile: () => T): T | null {
  try {
    const compiled = compile();
    return compiled.sql.length <= SQL_BUDGET.chars && compiled.params.length <= SQL_BUDGET.params ? compiled : null;
  } catch (error) {
    if (error instanceof InvalidRequestError) return null;
    throw error;
  }
}

/** Collects bound parameters while SQL text is built. */
export class SqlParams {
  readonly values: unknown[] = [];
  #aliases = 0;
  #charged = 0;
  /** `aliasPrefix`: told apart from the aliases of the statements a `SqlPiece` is spliced into. */
  constructor(
    private readonly dialect: Pick<SqlDialect, 'placeholder'>,
    private readonly aliasPrefix = 'b',
  ) {}

  /**
   * Counts `sql` (a leaf of the statement being built) against `SQL_BUDGET` and returns it: checked
   * as the text grows, so an oversized query is refused before megabytes of it are built.
   */
  charge(sql: string): string {
    this.#charged += sql.length;
    checkSqlBudget(this.#charged, this.values.length);
    return sql;
  }

  /** A table alias not used before in this statement (for `SqlDialect.bind`). */
  alias(): string {
    this.#aliases += 1;
    return `${this.aliasPrefix}${this.#aliases}`;
  }

  /** Binds `value` and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length, value);
  }
}

/**
 * SQL built once with parameters of its own and spliced into any number of statements, binding its
 * values with each statement's parameters (`emit`): a query's WHERE clause, which its plan writes
 * into the page's statement and into each candidate walk, is compiled once. While it is built its
 * placeholders are markers (NUL, the index, NUL: no longer than the placeholders they stand for, so
 * the size budget counts the same, and never in SQL text otherwise, since the query language
 * refuses NUL in field names and binds every value), which `isSimpleSql` reads as placeholders;
 * `emit` swaps each for the statement's own.
 */
export class SqlPiece {
  private constructor(
    private readonly text: string,
    private readonly values: readonly unknown[],
  ) {}

  static build(build: (p: SqlParams) => string, aliasPrefix: string): SqlPiece {
    const p = new SqlParams({ placeholder: (index) => `\0${index}\0` }, aliasPrefix);
    const text = build(p);
    return new SqlPiece(text, p.values);
  }

  emit(p: SqlParams): string {
    return this.text.replace(/\0(\d+)\0/g, (_, index: string) => p.add(this.values[Number(index) - 1]));
  }
}

/** One text the index is searched for (`textIndexNeedle`), and whether case is folded. */
export interface TextNeedle {
  needle: string;
  caseInsensitive: boolean;
}

/** How a dialect searches its text index (sqlite-dialect.ts, postgres-dialect.ts). */
export interface TextCandidateSql {
  /**
   * A SQL boolean over the call `c`: true for every call of the project whose inputs or output may
   * contain any of `needles` (each case folded when `caseInsensitive`; several for an `$or` of
   * `$contains`, calls-query/expr.ts): the index's matches, the calls written after the project's mark
   * (not indexed yet), and every call of a project the index does not cover yet.
   */
  textCandidates(projectId: string, needles: readonly TextNeedle[], p: SqlParams): string;
}
