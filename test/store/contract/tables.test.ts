import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TableQuery, TableStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/** Canonical texts as the service stores them (", " and ": " separators, sorted keys). */
const ROWS: Record<string, string> = {
  r1: '{"n": 10, "s": "b", "o": {"z": 1, "a": 2}}',
  r2: '{"n": 2, "s": "B", "flag": true}',
  r3: '{"n": null, "s": "a"}',
  r4: '{"n": 2.5, "s": "é", "list": [3, 1]}',
  r5: '{"s": {"k": "v"}, "n": "7"}',
  r6: '{"n": false, "s": "2"}',
};

/** Tables (docs/spec/objects.md §4) on every adapter that has them. */
forEachAdapter('table store', (store) => {
  const tables = (): TableStore => {
    const t = store().tables;
    assert.ok(t, 'the adapter has a table store');
    return t;
  };
  const ids = async (q: TableQuery): Promise<string[]> => {
    const out: string[] = [];
    for await (const row of tables().query(q)) out.push(`${row.digest}@${row.original_index}`);
    return out;
  };

  test(
    'create stores rows once, keeps order and duplicates, and is idempotent',
    guard(async () => {
      const p = freshProject();
      const order = ['r1', 'r2', 'r1', 'r3'];
      await tables().create(
        p,
        't1',
        order,
        order.map((d) => ({ digest: d, val: ROWS[d]! })),
        1,
      );
      await tables().create(p, 't1', ['r9'], [], 2);
      assert.deepEqual(await tables().rowDigests(p, 't1'), order);
      assert.equal(await tables().rowDigests(p, 'nope'), null);
      assert.deepEqual(await ids({ project_id: p, digest: 't1' }), ['r1@0', 'r2@1', 'r1@2', 'r3@3']);
      const [first] = await (async () => {
        const out = [];
        for await (const row of tables().query({ project_id: p, digest: 't1', limit: 1 })) out.push(row);
        return out;
      })();
      assert.ok(first !== undefined);
      assert.equal(first.val, ROWS.r1!, 'row text comes back byte for byte');
      assert.deepEqual(await tables().stats(p, ['t1', 'nope', 't1'], true), [
        {
          digest: 't1',
          count: 4,
          storage_size_bytes:
            2 * Buffer.byteLength(ROWS.r1!) + Buffer.byteLength(ROWS.r2!) + Buffer.byteLength(ROWS.r3!),
        },
        {
          digest: 't1',
          count: 4,
          storage_size_bytes:
            2 * Buffer.byteLength(ROWS.r1!) + Buffer.byteLength(ROWS.r2!) + Buffer.byteLength(ROWS.r3!),
        },
      ]);
      assert.deepEqual(await tables().stats(p, ['t1'], false), [{ digest: 't1', count: 4, storage_size_bytes: null }]);
      assert.equal(await tables().row(p, 't1', 'r2'), ROWS.r2!);
      assert.equal(await tables().row(p, 't1', 'r4'), null);
    }),
  );

  test(
    'tables from digests may name unknown rows: counted, never returned',
    guard(async () => {
      const p = freshProject();
      await tables().create(p, 'base', ['r1'], [{ digest: 'r1', val: ROWS.r1! }], 1);
      await tables().create(p, 'ref', ['r1', 'ghost', 'r1'], [], 2);
      assert.deepEqual(await ids({ project_id: p, digest: 'ref' }), ['r1@0', 'r1@2']);
      assert.deepEqual(await tables().stats(p, ['ref'], false), [
        { digest: 'ref', count: 3, storage_size_bytes: null },
      ]);
    }),
  );

  test(
    'query: row filter, paging, and the §4.4 sort (null < numbers and booleans < strings and objects by code point)',
    guard(async () => {
      const p = freshProject();
      const order = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
      await tables().create(
        p,
        't',
        order,
        order.map((d) => ({ digest: d, val: ROWS[d]! })),
        1,
      );
      const sorted = (path: string[], direction: 'asc' | 'desc' = 'asc') =>
        ids({ project_id: p, digest: 't', sort_by: [{ path, direction }] });
      assert.deepEqual(await sorted(['n']), ['r3@2', 'r6@5', 'r2@1', 'r4@3', 'r1@0', 'r5@4']);
      assert.deepEqual(await sorted(['n'], 'desc'), ['r5@4', 'r1@0', 'r4@3', 'r2@1', 'r6@5', 'r3@2']);
      assert.deepEqual(await sorted(['s']), ['r6@5', 'r2@1', 'r3@2', 'r1@0', 'r5@4', 'r4@3']);
      assert.deepEqual(await sorted(['list', '0']), ['r1@0', 'r2@1', 'r3@2', 'r5@4', 'r6@5', 'r4@3']);
      assert.deepEqual(await sorted(['o', 'a'], 'desc'), ['r1@0', 'r2@1', 'r3@2', 'r4@3', 'r5@4', 'r6@5']);
      assert.deepEqual(
        await ids({
          project_id: p,
          digest: 't',
          row_digests: ['r4', 'r2'],
          sort_by: [{ path: ['n'], direction: 'desc' }],
        }),
        ['r4@3', 'r2@1'],
      );
      assert.deepEqual(await ids({ project_id: p, digest: 't', limit: 2, offset: 3 }), ['r4@3', 'r5@4']);
      assert.deepEqual(await ids({ project_id: p, digest: 't', offset: Number.MAX_SAFE_INTEGER * 4 }), []);
      assert.deepEqual(await ids({ project_id: freshProject(), digest: 't' }), []);
    }),
  );
});
