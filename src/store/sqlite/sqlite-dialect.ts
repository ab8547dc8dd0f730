import type Database from 'better-sqlite3';
import { formatMicros } from '../../domain/time.js';
import { prefixSuccessor } from '../sql/prefix-successor.js';
import { isSimpleSql, type SqlDialect, type SqlParams } from '../sql/core/sql-dialect.js';
import { sqliteMessageCandidates } from '../sql/agent-message-search.js';
import { sqliteTextCandidates } from '../sql/calls-query/text.js';
import { SQLITE_DERIVED_STATUS } from '../sql/calls-query/status.js';
import { SQLITE_DERIVED_TOKENS } from '../sql/calls-query/tokens.js';
import { sqliteDerivedCost } from '../sql/calls-query/cost.js';

/**
 * SQLite SQL for the shared compilers. JSON paths are built per row because a numeric segment
 * is an array index only when the value there is an array (`$.a[0]`), else an object key (`$.a."0"`).
 */
function quoteKey(segment: string): string {
  return `."${segment.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * SQL text expression evaluating to the JSON path of `path` inside `column`. Each numeric segment
 * looks at the path so far twice, so that prefix is bound once: written inline, 17 numeric
 * segments made 2^17 copies of it (issue 17).
 */
function pathExpr(column: string, path: string[], p: SqlParams): string {
  let staticPart = '$';
  let dynamic: string | null = null;
  const current = (): string =>
    dynamic === null ? p.add(staticPart) : staticPart === '' ? dynamic : `(${dynamic} || ${p.add(staticPart)})`;
  for (const segment of path) {
    if (/^\d+$/.test(segment)) {
      const step = (prefix: string): string =>
        `(${prefix} || CASE json_type(${column}, ${prefix}) WHEN 'array' THEN '[${segment}]' ELSE '."${segment}"' END)`;
      dynamic = dynamic === null ? step(current()) : bind(current(), step, p);
      staticPart = '';
    } else {
      staticPart += quoteKey(segment);
    }
  }
  return current();
}

/** `SqlDialect.bind`: `LIMIT -1 OFFSET 0` keeps SQLite from flattening the subquery back into copies. */
function bind(expr: string, use: (value: string) => string, p: SqlParams): string {
  const alias = p.alias();
  return `(SELECT ${use(`${alias}.v`)} FROM (SELECT ${expr} AS v LIMIT -1 OFFSET 0) ${alias})`;
}

/** `use` with the column and the path inside it, each written once whatever its size. */
function atPath(column: string, path: string[], p: SqlParams, use: (column: string, at: string) => string): string {
  if (!isSimpleSql(column)) return bind(column, (bound) => atPath(bound, path, p, use), p);
  const at = pathExpr(column, path, p);
  return isSimpleSql(at) ? use(column, at) : bind(at, (boundAt) => use(column, boundAt), p);
}

export const sqliteDialect: SqlDialect = {
  placeholder: (index) => `@p${index}`,
  jsonRender(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (col, at) =>
        `(CASE json_type(${col}, ${at}) WHEN 'text' THEN json_extract(${col}, ${at}) WHEN 'null' THEN '' ELSE COALESCE(${col} -> ${at}, '') END)`,
    );
  },
  jsonNumber(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (
        col,
        at,
      ) => `(CASE json_type(${col}, ${at}) WHEN 'integer' THEN json_extract(${col}, ${at}) WHEN 'real' THEN json_extract(${col}, ${at})
      WHEN 'text' THEN heddle_text_to_double(json_extract(${col}, ${at})) END)`,
    );
  },
  jsonBool(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (col, at) => `(CASE json_type(${col}, ${at}) WHEN 'true' THEN 1 WHEN 'false' THEN 0
      WHEN 'integer' THEN heddle_text_to_bool(json_extract(${col}, ${at}))
      WHEN 'text' THEN heddle_text_to_bool(json_extract(${col}, ${at})) END)`,
    );
  },
  jsonExists(column, path, p) {
    return atPath(column, path, p, (col, at) => `(COALESCE(json_type(${col}, ${at}), 'null') <> 'null')`);
  },
  jsonKind(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (
        col,
        at,
      ) => `(CASE json_type(${col}, ${at}) WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' WHEN 'text' THEN 'string'
      ELSE json_type(${col}, ${at}) END)`,
    );
  },
  jsonText(column, path, p) {
    return atPath(column, path, p, (col, at) => `(${col} -> ${at})`);
  },
  jsonHasString(column, exact, prefixes, p) {
    const tests = exact.map((value) => `t.atom = ${p.add(value)}`);
    for (const prefix of prefixes) tests.push(sqliteDialect.startsWith('t.atom', prefix, p));
    return `EXISTS (SELECT 1 FROM json_tree(${column}) t WHERE t.type = 'text' AND (${tests.join(' OR ')}))`;
  },
  textToDouble: (expr) => `heddle_text_to_double(${expr})`,
  textToInt: (expr) => `heddle_text_to_int(${expr})`,
  textToBool: (expr) => `heddle_text_to_bool(${expr})`,
  numberToText: (expr) => `heddle_number_to_text(${expr})`,
  truncate: (expr) => `CAST(${expr} AS INTEGER)`,
  microsToText: (expr) => `heddle_format_micros(${expr})`,
  startsWith(expr, prefix, p) {
    // a range keeps an index on `expr` usable; BINARY collation orders UTF-8 text by code point
    const upper = prefixSuccessor(prefix);
    const low = `${expr} >= ${p.add(prefix)}`;
    return upper === null ? `(${expr} IS NOT NULL AND ${low})` : `(${low} AND ${expr} < ${p.add(upper)})`;
  },
  textFrom: (expr, start) => `substr(${expr}, ${Math.trunc(start)})`,
  textBefore(expr, separator, p) {
    return `substr(${expr}, 1, instr(${expr}, ${p.add(separator)}) - 1)`;
  },
  textAfter(expr, separator, p) {
    const at = `instr(${expr}, ${p.add(separator)})`;
    return `(CASE WHEN ${at} > 0 THEN substr(${expr}, ${at} + ${[...separator].length}) END)`;
  },
  boolToInt: (expr) => `(${expr})`,
  containsText: (haystack, needle) => `(instr(${haystack}, ${needle}) > 0)`,
  containsToken: (text, token) => `(heddle_contains_token(${text}, ${token}) = 1)`,
  lower: (expr) => `heddle_lower(${expr})`,
  textCandidates: sqliteTextCandidates,
  messageCandidates: sqliteMessageCandidates,
  derivedStatus: SQLITE_DERIVED_STATUS,
  derivedTokens: SQLITE_DERIVED_TOKENS,
  derivedCost: sqliteDerivedCost,
  byteLength: (expr) => `COALESCE(length(CAST(${expr} AS BLOB)), 0)`,
  trueLiteral: '1',
  falseLiteral: '0',
  insertionOrder: 'c.rowid ASC',
  unindexed: (expr) => `+${expr}`,
  limitOffset(limit, offset, p) {
    if (limit === null && offset === null) return '';
    // SQLite binds integers up to 2^63; anything larger means "everything" anyway
    const bounded = (n: number): string => p.add(Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER));
    return `LIMIT ${limit === null ? -1 : bounded(limit)}${offset === null ? '' : ` OFFSET ${bounded(offset)}`}`;
  },
  inList(column, values, p) {
    return values.length === 1
      ? `${column} = ${p.add(values[0])}`
      : `${column} IN (${values.map((v) => p.add(v)).join(', ')})`;
  },
  bind,
};

const DECIMAL_RE = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const INT_RE = /^\s*[+-]?\d+\s*$/;

/** The scalar functions the SQLite dialect uses; registered on every connection. */
export function registerSqliteFunctions(db: Database.Database): void {
  const opts = { deterministic: true } as const;
  db.function('heddle_text_to_double', opts, (value: unknown) => {
    if (typeof value === 'number') return value;
    if (typeof value !== 'string' || !DECIMAL_RE.test(value)) return null;
    return Number(value);
  });
  // a plain left-to-right sum, as JavaScript adds (SUM and TOTAL compensate rounding; calls-query/cost.ts)
  db.aggregate('heddle_sum_in_order', {
    start: () => null,
    step: (sum: number | null, x: unknown) => (typeof x === 'number' ? (sum ?? 0) + x : sum),
    deterministic: true,
  });
  db.function('heddle_text_to_int', opts, (value: unknown) => {
    if (typeof value === 'number') return Number.isInteger(value) ? value : null;
    if (typeof value !== 'string' || !INT_RE.test(value)) return null;
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : null;
  });
  db.function('heddle_text_to_bool', opts, (value: unknown) => {
    if (value === 'true') return 1;
    if (value === 'false') return 0;
    const n = typeof value === 'number' ? value : typeof value === 'string' && INT_RE.test(value) ? Number(value) : NaN;
    return Number.isInteger(n) && n >= 0 && n <= 255 ? n : null;
  });
  db.function('heddle_number_to_text', opts, (value: unknown) =>
    typeof value === 'number' ? String(value) : value == null ? null : String(value),
  );
  db.function('heddle_format_micros', opts, (value: unknown) =>
    typeof value === 'number' || typeof value === 'bigint' ? formatMicros(Number(value)) : null,
  );
  db.function('heddle_lower', opts, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value == null ? null : String(value),
  );
  db.function('heddle_contains_token', opts, (text: unknown, token: unknown) => {
    if (typeof text !== 'string' || typeof token !== 'string' || token === '') return 0;
    return text.split(/[^\p{L}\p{N}]+/u).includes(token) ? 1 : 0;
  });
}
