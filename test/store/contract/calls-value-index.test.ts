import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, sort, start, where } from './parts.js';

/**
 * `$eq` of an `inputs` field with a string goes through the `call_values` index (migration 016)
 * when the index can answer. Each case compares the indexed query with the same test written as an
 * `$in` (which the compiler answers by a scan), its count, and the ids that must match.
 */
forEachAdapter('calls equality through the value index', (store) => {
  const field = (path: string) => ({ $getField: path });
  const lit = (value: unknown) => ({ $literal: value });
  const both = async (s: TraceStore, project: string, path: string, value: string) => {
    const q = (expr: unknown): CallsQuery => ({ project_id: project, where: where(expr) });
    const indexed = (await ids(s, q({ $eq: [field(path), lit(value)] }))).sort();
    const scanned = (await ids(s, q({ $in: [field(path), [lit(value), lit(value)]] }))).sort();
    const counted = (await s.calls.count(q({ $eq: [field(path), lit(value)] }))).count;
    assert.deepEqual(indexed, scanned, `${path} == ${JSON.stringify(value)}`);
    assert.equal(Number(counted), indexed.length);
    return indexed;
  };
  const inputs = (value: unknown): string => JSON.stringify(value);

  test(
    'one and two keys deep, numbers and JSON-looking strings, long strings, arrays',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const long = 'x'.repeat(200);
      await s.calls.write([
        start(p, 'a', { inputs: inputs({ user: 'u-1', cfg: { model: 'gpt', deep: { x: 'u-1' } }, n: 5 }) }),
        start(p, 'b', { inputs: inputs({ user: 'u-2', cfg: { model: 'gpt' }, n: '5', text: long }) }),
        start(p, 'c', { inputs: inputs({ user: ['u-1'], cfg: 'gpt', list: [{ model: 'gpt' }], 'a.b': 'dot' }) }),
        start(p, 'd', { inputs: inputs({ user: null, 'odd key': 'u-1', obj: { k: 1 } }) }),
        start(p, 'e', { inputs: '{}' }),
      ]);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['a']);
      assert.deepEqual(await both(s, p, 'inputs.cfg.model', 'gpt'), ['a', 'b']);
      assert.deepEqual(await both(s, p, 'inputs.cfg', 'gpt'), ['c']);
      // three keys deep is past the index: the scan answers
      assert.deepEqual(await both(s, p, 'inputs.cfg.deep.x', 'u-1'), ['a']);
      // a number matches its text; strings that read as JSON never take the index
      assert.deepEqual(await both(s, p, 'inputs.n', '5'), ['a', 'b']);
      assert.deepEqual(await both(s, p, 'inputs.obj', '{"k":1}'), ['d']);
      // '' is also what a null or missing value renders as
      assert.deepEqual(await both(s, p, 'inputs.user', ''), ['d', 'e']);
      assert.deepEqual(await both(s, p, 'inputs.text', long), ['b']);
      assert.deepEqual(await both(s, p, 'inputs.list.0.model', 'gpt'), ['c']);
      assert.deepEqual(await both(s, p, 'inputs.odd key', 'u-1'), ['d']);
      assert.deepEqual(await both(s, p, 'inputs.a.b', 'dot'), []);
    }),
  );

  test(
    'ends before starts, starts sent again with other inputs, deleted calls, other projects',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      await s.calls.write([end(p, 'late'), start(other, 'o', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.write([start(p, 'late', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.write([start(p, 'moved', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.write([start(p, 'moved', { inputs: inputs({ user: 'u-9' }) })]);
      await s.calls.write([start(p, 'gone', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.deleteCascade(p, ['gone'], 1_800_000_000_000_000);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['late']);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-9'), ['moved']);
      assert.deepEqual(await both(s, other, 'inputs.user', 'u-1'), ['o']);
    }),
  );

  test(
    'a project dump made before migration 016 (no latency_ms, no call_values) imports with both',
    guard(async () => {
      const s = store();
      const p = freshProject();
      await s.calls.write([
        start(p, 'a', { inputs: inputs({ user: 'u-1' }), started_at: 1_000_000 }),
        end(p, 'a', { ended_at: 1_005_000 }),
        start(p, 'b', { inputs: inputs({ user: 'u-1' }), started_at: 2_000_000 }),
        end(p, 'b', { ended_at: 2_009_000 }),
        start(p, 'c', { inputs: inputs({ user: 'u-2' }), started_at: 3_000_000 }),
      ]);
      const rows = [];
      for await (const item of s.projectData.exportRows(p)) {
        if (item.table === 'call_values') continue;
        if (item.table === 'calls') delete item.row.latency_ms;
        rows.push(item);
      }
      await s.projectData.deleteProject(p);
      await s.projectData.importRows(
        p,
        (async function* () {
          yield* rows;
        })(),
      );
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['a', 'b']);
      const byLatency = await ids(s, {
        project_id: p,
        sort_by: sort([{ field: 'summary.weave.latency_ms', direction: 'desc' }]),
      });
      assert.deepEqual(byLatency, ['b', 'a', 'c']);
    }),
  );
});
