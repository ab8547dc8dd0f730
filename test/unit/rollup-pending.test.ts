import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RollupDelta, type RollupSource } from '../../src/domain/call-rollup.js';
import { pendingForm, pendingInsertSql, pendingRows } from '../../src/store/postgres/rollup-pending.js';
import { LATENCY_COLUMNS, STATS_COLUMNS } from '../../src/store/sql/call-rollup-sql.js';

/**
 * PostgreSQL's pending roll-up rows (rollup-pending.ts) write their JSON directly: each project's
 * text must be what `JSON.stringify` gives for the rows' column arrays (the encoding the fold and
 * the readers parse, call-rollup-sql.ts pgStatsElements), for any strings and sums.
 */

/** The encoding as it was first written: each changed row's columns as an array, JSON.stringify'd per project. */
function reference(delta: RollupDelta): Map<string, [string, string]> {
  const byProject = new Map<string, { stats: unknown[][]; hist: unknown[][] }>();
  const of = (p: string) => byProject.get(p) ?? byProject.set(p, { stats: [], hist: [] }).get(p)!;
  for (const r of delta.statsRows(false)) of(r.project_id).stats.push(STATS_COLUMNS.map((c) => r[c]));
  for (const r of delta.latencyRows(false)) of(r.project_id).hist.push(LATENCY_COLUMNS.map((c) => r[c]));
  return new Map([...byProject].map(([p, rows]) => [p, [JSON.stringify(rows.stats), JSON.stringify(rows.hist)]]));
}

function encoded(delta: RollupDelta): Map<string, [string, string]> {
  const { count, values } = pendingRows(delta);
  const [ids, stats, hist] = values;
  if (count === 1) {
    assert.ok(typeof ids === 'string' && typeof stats === 'string' && typeof hist === 'string');
    return new Map([[ids, [stats, hist]]]);
  }
  assert.ok(Array.isArray(ids) && Array.isArray(stats) && Array.isArray(hist));
  assert.equal(ids.length, count);
  return new Map(ids.map((p, i) => [p, [stats[i]!, hist[i]!]]));
}

const HOUR = 3_600_000_000;
const STRINGS = ['plain', 'quote " and \\ backslash', 'nul \u0000 tab \t', 'ünï 😀', 'lone \ud800 surrogate', '</x>'];

function randomDelta(seed: number, projects: readonly string[]): RollupDelta {
  let s = seed;
  const random = (): number => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const delta = new RollupDelta();
  const rows: [string, RollupSource][] = [];
  for (let i = 0; i < 60; i += 1) {
    const started = 10 * HOUR + Math.floor(random() * 3 * HOUR);
    const tokens = pick([3, 0.1, 1e308, -7, 12_345_678_901]);
    const usage = random() < 0.3 ? {} : { [pick(STRINGS)]: { prompt_tokens: tokens, completion_tokens: 0.2 } };
    rows.push([
      pick(projects),
      {
        started_at: started,
        deleted_at: null,
        op_name: random() < 0.1 ? null : pick(STRINGS),
        ended_at: random() < 0.2 ? null : started + Math.floor(random() * 5_000_000) - 100_000,
        exception: random() < 0.2 ? 'boom' : null,
        summary: JSON.stringify({ usage }),
      },
    ]);
  }
  for (const [project, row] of rows) delta.add(project, row, 1);
  // take some away again, so rows and bins cancel out
  for (const [project, row] of rows.slice(0, 25)) delta.add(project, row, -1);
  return delta;
}

test('pending rows are the JSON of the rows’ column arrays, for one project and for several', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    for (const projects of [['acme/one'], ['a/x', 'b/"y"', 'c/ü']]) {
      const delta = randomDelta(seed, projects);
      assert.deepEqual(encoded(delta), reference(delta), `seed ${seed}, ${projects.length} projects`);
    }
  }
  // sums of tokens that overflow are written as JSON.stringify writes them (null)
  const overflow = new RollupDelta();
  const big = JSON.stringify({ usage: { m: { prompt_tokens: 1e308 } } });
  const row = { started_at: HOUR, deleted_at: null, op_name: 'op', ended_at: null, exception: null, summary: big };
  overflow.add('p', row, 1);
  overflow.add('p', row, 1);
  assert.deepEqual(encoded(overflow), reference(overflow));
  assert.match(encoded(overflow).get('p')![0], /null/);
});

test('a delta that changes nothing appends no row; one project binds texts, several bind arrays', () => {
  const none = new RollupDelta();
  assert.deepEqual(pendingRows(none), { count: 0, values: [[], [], []] });
  const row = { started_at: HOUR, deleted_at: null, op_name: 'op', ended_at: null, exception: null, summary: null };
  none.add('p', row, 1);
  none.add('p', row, -1);
  assert.equal(pendingRows(none).count, 0);
  assert.match(pendingInsertSql(4, 1), /VALUES \(\$4::text, \$5::text, \$6::text\)/);
  assert.match(pendingInsertSql(4, 2), /unnest\(\$4::text\[\], \$5::text\[\], \$6::text\[\]\)/);
  assert.match(pendingInsertSql(4, 0), /unnest/);
  assert.notEqual(pendingForm(1), pendingForm(2));
  assert.equal(pendingForm(0), pendingForm(2));
});
