import type { SqlDialect } from '../core/sql-dialect.js';
import { INDEXED_VALUE_MAX, UNINDEXED_ATTRIBUTES_KEY, type ValueColumn } from '../../../domain/value-leaves.js';

/** SQL true for the top-level keys `key` of `column` whose leaves are indexed (value-leaves.ts `indexedKey`). */
const indexedKeySql = (column: ValueColumn, key: string): string =>
  column === 'attributes' ? ` AND ${key} <> '${UNINDEXED_ATTRIBUTES_KEY}'` : '';

/** What the indexer's SQL needs from each database. */
export interface TextIndexDialect {
  d: SqlDialect;
  /** Statement that serialises indexers of several nodes for the transaction, or null (SQLite: one writer). */
  lock: string | null;
  /** Writes (or replaces) the index entry of each call `c` matching `where`. */
  upsertText(where: string): string;
  /**
   * `INSERT … call_values … SELECT` of the leaves of `column` of the calls `c` matching `where`: the
   * string leaves one and two object keys deep, at most INDEXED_VALUE_MAX characters, path the
   * column and keys joined by U+001F (src/domain/value-leaves.ts `valueLeaves`, which
   * test/store/contract/calls-value-index.test.ts compares them with). Leaves already there are kept.
   */
  insertValues(where: string, column: ValueColumn): string;
  /**
   * Whether `calls` may be sharded (Citus), where a recursive statement over it cannot be routed:
   * the indexer then finds its projects by statements each shard answers (call-indexes/text-index.ts
   * waitingProjects). Absent: false.
   */
  distributed?: () => boolean;
}

/**
 * SQLite: the FTS5 entry of rowid `c.rowid` in `call_text_trigrams` (migration 032). The text is the inputs and the output as SQLite renders
 * JSON (compact), which holds every value `$contains` can test as a substring: numbers, booleans,
 * objects and arrays render as parts of it (sqlite-dialect.ts jsonRender); string leaves are tested
 * unescaped, so those that do not occur as such in the rendering (quotes, backslashes, control
 * characters) are added after it. Text that is not JSON is indexed as it is.
 */
export const SQLITE_TEXT_INDEX = (d: SqlDialect): TextIndexDialect => {
  // JSON text escapes only with a backslash: without one, every string leaf is in the rendering as it is
  const leaves = (json: string, rendered: string): string =>
    `(CASE WHEN instr(${rendered}, '\\') = 0 THEN '' ELSE COALESCE((SELECT char(10) || group_concat(j.atom, char(10))
      FROM json_tree(CASE WHEN json_valid(${json}) THEN ${json} ELSE 'null' END) j
      WHERE j.type = 'text' AND instr(${rendered}, j.atom) = 0), '') END)`;
  const rendered = (column: string): string =>
    `CASE WHEN json_valid(c.${column}) THEN json(c.${column}) ELSE COALESCE(c.${column}, '') END`;
  return {
    d,
    lock: null,
    upsertText: (where) => `WITH r AS MATERIALIZED (
        SELECT c.rowid AS k, c.inputs AS i, c.output AS o, ${rendered('inputs')} AS ri, ${rendered('output')} AS ro
        FROM calls c WHERE ${where})
      INSERT OR REPLACE INTO call_text_trigrams (rowid, text)
        SELECT k, ri || char(10) || ro || ${leaves('i', 'ri')} || ${leaves('o', 'ro')} FROM r`,
    // text that is not a JSON object has no leaves (json_each would fail on text that is not JSON)
    insertValues: (where, column) => `WITH r AS MATERIALIZED (
        SELECT c.project_id AS p, c.id AS k, c.${column} AS i FROM calls c
        WHERE ${where} AND (CASE WHEN json_valid(c.${column}) THEN json_type(c.${column}) END) = 'object')
      INSERT OR IGNORE INTO call_values (project_id, path, value, call_id)
      SELECT p, '${column}' || char(31) || e.key, e.atom, k FROM r, json_each(r.i) e
        WHERE e.type = 'text' AND length(e.atom) <= ${INDEXED_VALUE_MAX}${indexedKeySql(column, 'e.key')}
      UNION ALL
      SELECT p, '${column}' || char(31) || e.key || char(31) || f.key, f.atom, k FROM r, json_each(r.i) e, json_each(e.value) f
        WHERE e.type = 'object' AND f.type = 'text' AND length(f.atom) <= ${INDEXED_VALUE_MAX}${indexedKeySql(column, 'e.key')}`,
  };
};

/** PostgreSQL: `heddle_call_text` (migration 017) renders a column the same way as SQLite's above. */
export const POSTGRES_TEXT_INDEX = (d: SqlDialect, distributed: () => boolean = () => false): TextIndexDialect => ({
  d,
  distributed,
  lock: `SELECT pg_advisory_xact_lock(${TEXT_INDEX_LOCK_KEY})`,
  upsertText: (where) => `INSERT INTO call_texts (project_id, id, text)
    SELECT c.project_id, c.id, heddle_call_text(c.inputs) || E'\\n' || heddle_call_text(c.output) FROM calls c WHERE ${where}
    ON CONFLICT (project_id, id) DO UPDATE SET text = excluded.text`,
  // a non-object reads as {}, so it never fails
  insertValues: (where, column) => `INSERT INTO call_values (project_id, path, value, call_id)
    SELECT c.project_id, '${column}' || chr(31) || e.key, e.value #>> '{}', c.id
      FROM calls c, jsonb_each(CASE WHEN jsonb_typeof(c.${column}) = 'object' THEN c.${column} ELSE '{}' END) e
      WHERE ${where} AND jsonb_typeof(e.value) = 'string' AND length(e.value #>> '{}') <= ${INDEXED_VALUE_MAX}${indexedKeySql(column, 'e.key')}
    UNION ALL
    SELECT c.project_id, '${column}' || chr(31) || e.key || chr(31) || f.key, f.value #>> '{}', c.id
      FROM calls c, jsonb_each(CASE WHEN jsonb_typeof(c.${column}) = 'object' THEN c.${column} ELSE '{}' END) e,
           jsonb_each(CASE WHEN jsonb_typeof(e.value) = 'object' THEN e.value ELSE '{}' END) f
      WHERE ${where} AND jsonb_typeof(f.value) = 'string' AND length(f.value #>> '{}') <= ${INDEXED_VALUE_MAX}${indexedKeySql(column, 'e.key')}
    ON CONFLICT DO NOTHING`,
});

/** The advisory lock of the PostgreSQL indexer (one indexer at a time across nodes). */
const TEXT_INDEX_LOCK_KEY = '4811017';
