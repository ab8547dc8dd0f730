/**
 * What differs between the SQL backends when compiling queries. The compilers in this folder
 * write portable SQL and ask the dialect for everything else (kysely-style capability methods
 * instead of `if (sqlite)` branches).
 *
 * The compilers also assume what every backend must provide underneath: text compares and
 * sorts by code point (UTF-8 bytes; calls spec §5.5 "strings by bytes", so PostgreSQL text
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
   * - `jsonRender`: the value as text per calls spec §5.3 (strings unquoted, objects compact JSON,
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
  /** Byte length of a text expression (0 for NULL). */
  byteLength(expr: string): string;
  /** The SQL boolean literals. */
  readonly trueLiteral: string;
  readonly falseLiteral: string;
  /** Expression giving rows in insertion order. */
  readonly insertionOrder: string;
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
}

/** Collects bound parameters while SQL text is built. */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: Pick<SqlDialect, 'placeholder'>) {}

  /** Binds `value` and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length, value);
  }
}
