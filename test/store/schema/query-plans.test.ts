import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { compileCallsCount, compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import type { CallsQuery } from '../../../src/store/types.js';
import { sort, where } from '../contract/parts.js';
import { postgresPlan, sqlitePlanner } from './fresh-schemas.js';

/**
 * The indexes of migration 016 serve the queries the compiler writes for a project whose indexes
 * are complete (docs/query-performance.md), so a change to either the schema or the compiler that
 * loses them fails here instead of making the traces table slow at scale.
 */
const INDEXED = true;

const byLatency: CallsQuery = {
  project_id: 'acme/demo',
  sort_by: sort([{ field: 'summary.weave.latency_ms', direction: 'desc' }]),
  limit: 100,
};

const byUser: CallsQuery = {
  project_id: 'acme/demo',
  where: where({ $eq: [{ $getField: 'inputs.user_id' }, { $literal: 'user-4374' }] }),
  sort_by: sort([{ field: 'started_at', direction: 'desc' }]),
  limit: 100,
};

/** Equalities on output and attribute fields (the leaves of their fills, call-indexes/entry-fills.ts). */
const byOutput: CallsQuery = {
  ...byUser,
  where: where({ $eq: [{ $getField: 'output.label' }, { $literal: 'spam' }] }),
};
const byAttribute: CallsQuery = {
  ...byUser,
  where: where({ $eq: [{ $getField: 'attributes.app.region' }, { $literal: 'eu' }] }),
};

test('SQLite: latency sort walks call_latency; equality looks ids up; the project count reads call_counts', async (t) => {
  const plan = await sqlitePlanner(t);
  for (const [direction, roots] of [
    ['desc', false],
    ['asc', false],
    ['asc', true],
  ] as const) {
    const q: CallsQuery = {
      ...byLatency,
      sort_by: sort([{ field: 'summary.weave.latency_ms', direction }]),
      ...(roots ? { filter: { trace_roots_only: true } } : {}),
    };
    const compiled = compileCallsSelect(q, sqliteDialect, INDEXED);
    // roots only: the roots' own entries (migration 028)
    assert.match(compiled.sql, roots ? /FROM call_latency_roots l/ : /FROM call_latency l/);
    const sorted = plan(compiled);
    // the first limit entries along the key (latencies, then the NULL ones), each call looked up by
    // key, and the calls after the indexer's mark; only those candidates are sorted. The roots' entries
    // have an index in the order of ascending latency with descending ids: their ties are not sorted
    const key = roots ? 'COVERING INDEX call_latency_roots_by_id_desc' : 'PRIMARY KEY';
    const lookup = 'SEARCH c USING INDEX sqlite_autoindex_calls_1 \\(project_id=\\? AND id=\\?\\)';
    assert.match(sorted, new RegExp(`SEARCH l USING ${key} \\(project_id=\\? AND latency_ms<\\?\\)\\n${lookup}`));
    assert.match(sorted, new RegExp(`SEARCH l USING [^\\n]+ \\(project_id=\\? AND latency_ms=\\?\\)\\n${lookup}`));
    if (roots) assert.doesNotMatch(sorted, /LAST TERM OF ORDER BY/);
    assert.match(sorted, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.match(sorted, /^SEARCH c USING INDEX sqlite_autoindex_calls_1 \(project_id=\? AND id=\?\)\nLIST SUBQUERY/);
    assert.doesNotMatch(sorted, /SCAN (c|l|t)\b/);
    // a sort of the entries' ties by id at most (ascending latency, descending id), never of the project
    assert.doesNotMatch(sorted, /TEMP B-TREE FOR (?!ORDER BY$|LAST TERM OF ORDER BY$)/m);
  }
  const plans = [byUser, byOutput, byAttribute].flatMap((q) => [
    plan(compileCallsSelect(q, sqliteDialect, INDEXED)),
    plan(compileCallsCount({ project_id: 'acme/demo', where: q.where }, sqliteDialect, INDEXED)),
  ]);
  for (const [i, p] of plans.entries()) {
    // the leaves of output and attributes: every call too while the statement reads their fill as not done
    if (i >= 2) assert.match(p, /SEARCH f USING [^\n]*\(project_id=\? AND entries=\?\)/);
    // candidates: the value index's matches and the calls after the indexer's mark, each looked up by key
    assert.match(p, /SEARCH c USING INDEX sqlite_autoindex_calls_1 \(project_id=\? AND id=\?\)/);
    assert.match(p, /SEARCH v USING PRIMARY KEY \(project_id=\? AND path=\? AND value=\?\)/);
    assert.match(p, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.match(p, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq=\? AND id>\?\)/);
    assert.match(p, /SEARCH m USING INDEX sqlite_autoindex_call_text_marks_1 \(project_id=\?\)/);
    // every call of a project without a covering mark: behind a one-row table, read first, empty when covered
    assert.match(p, /SCAN g\nSEARCH t USING COVERING INDEX calls_by_change \(project_id=\?\)/);
    assert.doesNotMatch(p, /SCAN c\b/);
  }
  const counted = plan(compileCallsCount({ project_id: 'acme/demo' }, sqliteDialect, INDEXED));
  assert.match(counted, /call_counts/);
  assert.doesNotMatch(counted, /SCAN c\b|calls AS c|TABLE calls/);
});

test('SQLite: $contains looks its candidates up by rowid, the tail by calls_by_change (migration 017)', async (t) => {
  const plan = await sqlitePlanner(t);
  const contains = where({ $contains: { input: { $getField: 'inputs.user_id' }, substr: { $literal: 'r-4374' } } });
  const q = { ...byUser, where: contains };
  for (const compiled of [
    compileCallsSelect(q, sqliteDialect, true),
    compileCallsCount({ project_id: q.project_id, where: contains }, sqliteDialect, true),
  ]) {
    const p = plan(compiled);
    assert.match(p, /SEARCH c USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    assert.match(p, /SCAN call_text_fts VIRTUAL TABLE/);
    assert.match(p, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
  }
});

test('PostgreSQL: latency sort walks call_latency (roots only: call_latency_roots), sorting only its candidates', async (t) => {
  for (const [table, filter] of [
    ['call_latency', {}],
    ['call_latency_roots', { filter: { trace_roots_only: true } }],
  ] as const) {
    // an empty table: forbid the alternatives so the plan shows whether the index can give the order
    const compiled = compileCallsSelect({ ...byLatency, ...filter }, postgresDialect, INDEXED);
    const plan = await postgresPlan(t, compiled, 'SET enable_seqscan = off; SET enable_sort = off');
    if (plan === null) return t.skip('PostgreSQL unavailable');
    // the entries along the key from the largest latency below the NULL key, then the NULL ones (by id
    // descending: the roots' index in that order, or the primary key backward)
    const walk = (alias: string, op: string): RegExp =>
      new RegExp(
        `Scan (Backward )?using ${table}_(pkey|by_id_desc) on ${table} ${alias} .*\\n\\s+Index Cond: \\(\\(project_id = .* AND \\(latency_ms ${op} `,
      );
    assert.match(plan, walk('l', '<'));
    assert.match(plan, walk('l_1', '='));
    assert.match(plan, /calls_by_change/);
    assert.doesNotMatch(plan, /Seq Scan/);
    // only the candidates are sorted: the Sort sits above the semi-join with them
    assert.match(plan, /Sort Key: c\.latency_ms DESC NULLS LAST[^\n]*\n\s+-> {2}Nested Loop Semi Join/);
  }
});

test('PostgreSQL: equality reads call_values and the tail after the mark by index', async (t) => {
  for (const q of [byUser, byOutput, byAttribute]) {
    const plan = await postgresPlan(t, compileCallsSelect(q, postgresDialect, INDEXED), 'SET enable_seqscan = off');
    if (plan === null) return t.skip('PostgreSQL unavailable');
    assert.match(plan, /Index Only Scan using call_values_pkey on call_values v/);
    assert.match(plan, /calls_by_change/);
    if (q !== byUser) assert.match(plan, /call_entry_fills_pkey on call_entry_fills f/);
    assert.doesNotMatch(plan, /Seq Scan/);
  }
});

const byStatus: CallsQuery = {
  project_id: 'acme/demo',
  where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] }),
  filter: { trace_roots_only: true, op_names: ['weave:///acme/demo/op/predict:abc'] },
  sort_by: sort([{ field: 'started_at', direction: 'desc' }]),
  limit: 100,
};
const sortedByStatus: CallsQuery = {
  project_id: 'acme/demo',
  sort_by: sort([{ field: 'summary.weave.status', direction: 'asc' }]),
  limit: 100,
};

test('SQLite: the status filter and sort walk call_status and look the candidates up by key', async (t) => {
  const plan = await sqlitePlanner(t);
  // each status's first entries along a key of call_status, in the page's order (no sort of them),
  // each call looked up by key in a subquery; then only the candidates are read by key and sorted
  const walk = (index: string): RegExp =>
    new RegExp(
      `SEARCH s USING ${index} \\(project_id=\\? AND status=\\?\\)\nCORRELATED SCALAR SUBQUERY \\d+\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \\(project_id=\\? AND id=\\?\\)\nSCAN e`,
      'g',
    );
  const cases: Array<[CallsQuery, RegExp, number]> = [];
  for (const direction of ['desc', 'asc'] as const) {
    cases.push([{ ...byStatus, sort_by: sort([{ field: 'started_at', direction }]) }, walk('PRIMARY KEY'), 1]);
    const statusThen = (field: string): CallsQuery => ({
      ...sortedByStatus,
      sort_by: sort([
        { field: 'summary.weave.status', direction },
        { field, direction },
      ]),
    });
    cases.push([statusThen('id'), walk('COVERING INDEX call_status_by_id'), 4]);
    cases.push([statusThen('started_at'), walk('PRIMARY KEY'), 4]);
  }
  cases.push([{ ...byStatus, sort_by: null }, walk('PRIMARY KEY'), 1]);
  cases.push([sortedByStatus, walk('COVERING INDEX call_status_by_id'), 4]);
  // roots only (the traces page's default): the roots' own entries (migration 030), along the same keys
  const roots = { filter: { trace_roots_only: true } };
  cases.push([
    { ...byStatus, ...roots, sort_by: sort([{ field: 'started_at', direction: 'desc' }]) },
    walk('PRIMARY KEY'),
    1,
  ]);
  cases.push([{ ...sortedByStatus, ...roots }, walk('COVERING INDEX call_status_roots_by_id'), 4]);
  for (const [q] of cases.slice(-2))
    assert.match(compileCallsSelect(q, sqliteDialect, INDEXED).sql, /FROM call_status_roots s/);
  const plans: Array<[string, RegExp, number]> = cases.map(([q, entries, statuses]) => [
    plan(compileCallsSelect(q, sqliteDialect, INDEXED)),
    entries,
    statuses,
  ]);
  for (const [p, entries, statuses] of plans) {
    assert.equal(p.match(entries)?.length, statuses, p);
    assert.match(p, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.match(p, /\nSCAN k\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \(project_id=\? AND id=\?\)\n/);
    assert.doesNotMatch(p, /SCAN (c|s|t)\b/);
    assert.doesNotMatch(p, /calls_by_(start|op)/);
  }
  // the capped count (the traces page's) walks the entries of the status along either key and
  // looks up only the tail's calls
  const count = plan(compileCallsCount({ ...byStatus, limit: 10_000 }, sqliteDialect, INDEXED));
  // (roots only, as `byStatus` is: along the roots' own entries)
  assert.equal(count.match(walk('(?:PRIMARY KEY|COVERING INDEX call_status_roots_by_id)'))?.length, 1, count);
  assert.match(compileCallsCount({ ...byStatus, limit: 10_000 }, sqliteDialect, INDEXED).sql, /call_status_roots s/);
  assert.match(count, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
  assert.doesNotMatch(count, /SCAN (c|s|t)\b/);
  assert.doesNotMatch(count, /calls_by_(start|op)/);
});

test('PostgreSQL: the status filter and sort walk call_status', async (t) => {
  const settings = 'SET enable_seqscan = off; SET enable_sort = off';
  const filtered = await postgresPlan(t, compileCallsSelect(byStatus, postgresDialect, INDEXED), settings);
  if (filtered === null) return t.skip('PostgreSQL unavailable');
  // roots only, as the traces page asks: the roots' own entries (migration 030)
  assert.match(filtered, /Index Only Scan Backward using call_status_roots_pkey on call_status_roots s /);
  const sorted = await postgresPlan(t, compileCallsSelect(sortedByStatus, postgresDialect, INDEXED), settings);
  assert.equal(sorted?.match(/Index Scan Backward using call_status_by_id on call_status s/g)?.length, 4);
  for (const plan of [filtered, sorted!]) {
    assert.match(plan, /calls_by_change/);
    assert.doesNotMatch(plan, /Seq Scan/);
  }
});
