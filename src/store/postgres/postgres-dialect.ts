import { prefixSuccessor } from '../sql/prefix-successor.js';
import type { SqlDialect, SqlParams } from '../sql/core/sql-dialect.js';
import { postgresMessageCandidates } from '../sql/agent-message-search.js';
import { postgresTextCandidates } from '../sql/calls-query/text.js';
import { POSTGRES_DERIVED_STATUS } from '../sql/calls-query/status.js';
import { POSTGRES_DERIVED_TOKENS } from '../sql/calls-query/tokens.js';
import { postgresDerivedCost } from '../sql/calls-query/cost.js';

/**
 * PostgreSQL SQL for the shared compilers. Columns are JSONB and text `COLLATE "C"` (see
 * sql/migrations/001-auth-and-calls.ts); the `heddle_*` functions come from
 * sql/migrations/postgres-functions.ts and mirror the ones the
 * SQLite adapter registers, so both stores answer a query the same way.
 */

/** Path segments PostgreSQL's `#>` would read as an array index although SQLite reads them as keys (`-1`, ` 2`). */
const INDEX_LIKE_KEY = /^\s*[+-]?\d+$/;

/**
 * The JSONB value at `path` inside `column` (SQL NULL when missing). `#>` treats a segment as an
 * array index exactly when the value there is an array, as the SQLite adapter does, except for
 * signed or space-padded integers, which SQLite only ever reads as object keys: those go through
 * `->` with a text key, which never indexes an array.
 */
function pathExpr(column: string, path: string[], p: SqlParams): string {
  let expr = column;
  let group: string[] = [];
  const flush = (): void => {
    if (group.length > 0) expr = `(${expr} #> ${p.add(group)})`;
    group = [];
  };
  for (const segment of path) {
    if (/^\d+$/.test(segment) || !INDEX_LIKE_KEY.test(segment)) {
      group.push(segment);
    } else {
      flush();
      expr = `(${expr} -> ${p.add(segment)})`;
    }
  }
  flush();
  return expr;
}

/**
 * `use` with the JSONB value at `path`. A JSONB column (`c.inputs`) is read as is; any other expression is
 * JSON text (an expanded ref's object value, see CallsExprCompiler #jsonBase), parsed once and bound,
 * since `use` names the value several times.
 */
function atPath(column: string, path: string[], p: SqlParams, use: (value: string) => string): string {
  if (/^[a-z]+\.[a-z_]+$/.test(column)) return use(pathExpr(column, path, p));
  return bind(`(${column})::jsonb`, (bound) => use(pathExpr(bound, path, p)), p);
}

/** `SqlDialect.bind`: `OFFSET 0` keeps the planner from pulling the subquery up into copies of `expr`. */
function bind(expr: string, use: (value: string) => string, p: SqlParams): string {
  const alias = p.alias();
  return `(SELECT ${use(`${alias}.v`)} FROM (SELECT ${expr} AS v OFFSET 0) ${alias})`;
}

/** A cast that tells PostgreSQL the parameter's type (it cannot infer it in every position, e.g. `$1 > $2`). */
function castFor(value: unknown): string {
  if (typeof value === 'string') return '::text';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? '::bigint' : '::float8';
  if (typeof value === 'boolean') return '::boolean';
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return '::text[]';
    if (value.every((v) => typeof v === 'number'))
      return value.every((v) => Number.isSafeInteger(v)) ? '::bigint[]' : '::float8[]';
  }
  return '';
}

/**
 * change_seq is the writer's transaction id (call-merge.ts). Every xid below the statement
 * snapshot's xmin has finished, but that xmin is the whole cluster's: a long transaction in another
 * database on the same server would hold every live tail back. So: the oldest xid still running in
 * the snapshot, leaving out those that pg_stat_activity shows running in another database (they
 * cannot write these calls; any role may read their xids), else the snapshot's xmax. An xid it cannot
 * place (finished since, a prepared transaction) counts as this database's. It is a CTE of its own so
 * that Citus plans it apart, on the coordinator: inline beside the one-row gate of
 * calls-query/coverage.ts, Citus refuses the query ("outer joins and pseudoconstant quals are not
 * supported in PG15 and PG16"), which a live tail filtered on an indexed field sends.
 */
const CHANGE_HORIZON = `(WITH horizon AS MATERIALIZED (SELECT COALESCE(
  (SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) AS x
    WHERE x::text::bigint % 4294967296 NOT IN (
      SELECT a.backend_xid::text::bigint FROM pg_stat_activity AS a
       WHERE a.backend_xid IS NOT NULL
         AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database()))),
  pg_snapshot_xmax(s)::text::bigint) AS v FROM pg_current_snapshot() AS s) SELECT v FROM horizon)`;

export const postgresDialect: SqlDialect = {
  placeholder: (index, value?: unknown) => `$${index}${castFor(value)}`,
  jsonRender(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (v) => `((CASE jsonb_typeof(${v}) WHEN 'string' THEN ${v} #>> '{}' WHEN 'null' THEN ''
      WHEN 'object' THEN heddle_json_text(${v}) WHEN 'array' THEN heddle_json_text(${v}) ELSE COALESCE(${v}::text, '') END) COLLATE "C")`,
    );
  },
  jsonNumber(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (v) =>
        `(CASE jsonb_typeof(${v}) WHEN 'number' THEN (${v})::float8 WHEN 'string' THEN heddle_text_to_double(${v} #>> '{}') END)`,
    );
  },
  jsonBool(column, path, p) {
    // numbers as SQLite sees them: an integer 0..255 is itself, anything else (1.5) has no boolean reading
    return atPath(
      column,
      path,
      p,
      (v) => `(CASE jsonb_typeof(${v}) WHEN 'boolean' THEN (${v})::boolean::integer
      WHEN 'number' THEN heddle_text_to_bool(${v}::text) WHEN 'string' THEN heddle_text_to_bool(${v} #>> '{}') END)`,
    );
  },
  jsonExists(column, path, p) {
    return atPath(column, path, p, (v) => `(COALESCE(jsonb_typeof(${v}), 'null') <> 'null')`);
  },
  jsonKind(column, path, p) {
    return atPath(
      column,
      path,
      p,
      (v) => `(CASE jsonb_typeof(${v}) WHEN 'boolean' THEN ${v}::text ELSE jsonb_typeof(${v}) END)`,
    );
  },
  jsonText(column, path, p) {
    return atPath(column, path, p, (v) => `(${v})::text`);
  },
  jsonHasString(column, exact, prefixes, p) {
    const atom = `(t.v #>> '{}') COLLATE "C"`;
    const tests = exact.length > 0 ? [`${atom} = ANY(${p.add(exact)})`] : [];
    for (const prefix of prefixes) tests.push(postgresDialect.startsWith(atom, prefix, p));
    // strict mode: `.**` visits every value once (lax mode would also unwrap arrays)
    return `EXISTS (SELECT 1 FROM jsonb_path_query(${column}, 'strict $.**') AS t(v)
      WHERE jsonb_typeof(t.v) = 'string' AND (${tests.join(' OR ')}))`;
  },
  textToDouble: (expr) => `heddle_text_to_double(${expr})`,
  textToInt: (expr) => `heddle_text_to_int(${expr})`,
  textToBool: (expr) => `heddle_text_to_bool(${expr})`,
  numberToText: (expr) => `heddle_number_to_text((${expr})::float8)`,
  // float8 keeps huge values instead of overflowing bigint (SQLite saturates there)
  truncate: (expr) => `trunc((${expr})::float8)`,
  microsToText: (expr) => `heddle_format_micros(${expr})`,
  startsWith(expr, prefix, p) {
    // a range on "C"-collated text keeps a btree index usable and compares by code point
    const upper = prefixSuccessor(prefix);
    const low = `(${expr}) COLLATE "C" >= ${p.add(prefix)}`;
    return upper === null ? `(${expr} IS NOT NULL AND ${low})` : `(${low} AND (${expr}) COLLATE "C" < ${p.add(upper)})`;
  },
  textFrom: (expr, start) => `substr(${expr}, ${Math.trunc(start)})`,
  textBefore(expr, separator, p) {
    const at = `strpos(${expr}, ${p.add(separator)})`;
    return `(CASE WHEN ${at} > 0 THEN substr(${expr}, 1, ${at} - 1) ELSE '' END)`;
  },
  textAfter(expr, separator, p) {
    const at = `strpos(${expr}, ${p.add(separator)})`;
    return `(CASE WHEN ${at} > 0 THEN substr(${expr}, ${at} + ${[...separator].length}) END)`;
  },
  boolToInt: (expr) => `(${expr})::integer`,
  containsText: (haystack, needle) => `(strpos(${haystack}, ${needle}) > 0)`,
  containsToken: (text, token) => `heddle_contains_token(${text}, ${token})`,
  lower: (expr) => `heddle_lower(${expr})`,
  textCandidates: postgresTextCandidates,
  messageCandidates: postgresMessageCandidates,
  derivedStatus: POSTGRES_DERIVED_STATUS,
  derivedTokens: POSTGRES_DERIVED_TOKENS,
  derivedCost: postgresDerivedCost,
  byteLength: (expr) => `COALESCE(octet_length(heddle_json_text(${expr})), 0)`,
  trueLiteral: 'TRUE',
  falseLiteral: 'FALSE',
  insertionOrder: 'c.seq ASC',
  unindexed: (expr) => expr,
  changeHorizon: CHANGE_HORIZON,
  limitOffset(limit, offset, p) {
    if (limit === null && offset === null) return '';
    // LIMIT/OFFSET are bigint here (SQLite takes any number): past 2^53 rows "more than all" is all the same
    const bounded = (n: number): string => p.add(Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER));
    return `LIMIT ${limit === null ? 'ALL' : bounded(limit)}${offset === null ? '' : ` OFFSET ${bounded(offset)}`}`;
  },
  inList(column, values, p) {
    return `${column} = ANY(${p.add([...values])})`;
  },
  bind,
};
