import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COUNT_BUCKET_US, countChanges, type CountedColumns } from '../../src/store/postgres/call-counts.js';

/**
 * The hour counters a PostgreSQL call write moves (postgres/call-counts.ts, migration 031), from the
 * stored row before the write and the row it wrote: what migration 016's triggers counted.
 */

const H = COUNT_BUCKET_US;
const row = (
  id: string,
  started_at: number | null,
  deleted_at: number | null = null,
  project = 'p',
): CountedColumns => ({
  project_id: project,
  id,
  started_at,
  deleted_at,
});

const cases: Array<{ what: string; before: CountedColumns[]; after: CountedColumns[]; expected: unknown }> = [
  {
    what: 'a new started call counts in its hour',
    before: [],
    after: [row('a', 2 * H + 5)],
    expected: { p: [['a', 2, 1]] },
  },
  { what: 'a new call without a start is not counted', before: [], after: [row('a', null)], expected: {} },
  { what: 'an end of a counted call changes nothing', before: [row('a', H)], after: [row('a', H)], expected: {} },
  {
    what: 'a start sent again in another hour moves the call',
    before: [row('a', H)],
    after: [row('a', 3 * H)],
    expected: {
      p: [
        ['a', 1, -1],
        ['a', 3, 1],
      ],
    },
  },
  {
    what: 'a deletion takes the call out',
    before: [row('a', H)],
    after: [row('a', H, 9)],
    expected: { p: [['a', 1, -1]] },
  },
  { what: 'a start of a deleted call stays out', before: [row('a', null, 9)], after: [row('a', H, 9)], expected: {} },
  {
    what: 'an end-only call given its start counts',
    before: [row('a', null)],
    after: [row('a', H)],
    expected: { p: [['a', 1, 1]] },
  },
  {
    what: 'projects are kept apart; a start before 1970 truncates toward zero as PostgreSQL divides',
    before: [],
    after: [row('a', -H - 1, null, 'q'), row('b', H, null, 'p')],
    expected: { q: [['a', -1, 1]], p: [['b', 1, 1]] },
  },
];

for (const c of cases)
  test(c.what, () => {
    const got: Record<string, Array<[string, number, number]>> = {};
    for (const [project, changes] of countChanges(c.before, c.after))
      got[project] = changes.ids.map((id, i) => [id, changes.buckets[i]!, changes.deltas[i]!]);
    assert.deepEqual(got, c.expected);
  });
