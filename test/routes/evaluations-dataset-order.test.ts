import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/**
 * `eval_results/query` ordered as the datasets are (`sort_by: [{field: "dataset_order"}]`, our
 * choice beside the spec's fields; the compare page's "Dataset order"): the first evaluation's
 * dataset in its table's row order, then rows only a later evaluation's dataset holds, in that
 * dataset's order, then inline examples as first seen. Without a sort the spec's row-digest order
 * stays.
 */

type Json = Record<string, any>;
const V2 = `/v2/${PROJECT}`;

async function ok(h: TestApp, url: string, body: unknown): Promise<Json> {
  const res = await h.post(url, body);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json();
}

async function call(h: TestApp, start: Json, end: Json): Promise<void> {
  await ok(h, '/call/start', makeStart({ trace_id: start.id, ...start }));
  await ok(h, '/call/end', makeEnd(start.id as string, end));
}

async function dataset(h: TestApp, name: string, rows: Json[]): Promise<{ refs: string[]; digests: string[] }> {
  const table = await ok(h, '/table/create', { table: { project_id: PROJECT, rows } });
  const obj = await ok(h, '/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: name,
      val: { _type: 'Dataset', _class_name: 'Dataset', name, rows: `weave:///${PROJECT}/table/${table.digest}` },
    },
  });
  const digests = table.row_digests as string[];
  return { digests, refs: digests.map((d) => `weave:///${PROJECT}/object/${name}:${obj.digest}/attr/rows/id/${d}`) };
}

/** An evaluation root `id` with one trial per example, started in the order given. */
async function evaluation(h: TestApp, id: string, examples: unknown[]): Promise<void> {
  await call(h, { id, op_name: 'Evaluation.evaluate', inputs: {} }, { output: {} });
  for (const [i, example] of examples.entries())
    await call(
      h,
      { id: `${id}-t${i}`, trace_id: id, parent_id: id, op_name: 'Evaluation.predict_and_score', inputs: { example } },
      { output: { output: i, scores: { exact: i % 2 === 0 } } },
    );
}

const order = async (h: TestApp, ids: string[], sortBy: unknown): Promise<string[]> =>
  ((await ok(h, `${V2}/eval_results/query`, { evaluation_call_ids: ids, sort_by: sortBy })).rows as Json[]).map(
    (row) => row.row_digest as string,
  );

const QUESTIONS = Array.from({ length: 8 }, (_, i) => ({ question: `question ${i}`, expected: String(i) }));

test('dataset_order: the dataset table order, whatever order the trials ran in; desc reverses it', async (t) => {
  const h = await buildTestApp(t);
  const ds = await dataset(h, 'qa', QUESTIONS);
  // the precondition that makes this a test: digest order is not dataset order
  assert.notDeepEqual([...ds.digests].sort(), ds.digests);
  // trials ran concurrently: started in another order than the dataset's
  await evaluation(
    h,
    'E1',
    [5, 2, 7, 0, 3, 6, 1, 4].map((i) => ds.refs[i]),
  );
  assert.deepEqual(await order(h, ['E1'], [{ field: 'dataset_order', direction: 'asc' }]), ds.digests);
  assert.deepEqual(await order(h, ['E1'], [{ field: 'dataset_order', direction: 'desc' }]), [...ds.digests].reverse());
  assert.deepEqual(await order(h, ['E1'], null), [...ds.digests].sort(), 'no sort: row digest ascending (§4.1)');
});

test('dataset_order over two datasets: the first run dataset, then rows only the second has, then inline rows', async (t) => {
  const h = await buildTestApp(t);
  const first = await dataset(h, 'qa', QUESTIONS.slice(0, 4));
  const extra = [
    { question: 'extra a', expected: 'a' },
    { question: 'extra b', expected: 'b' },
  ];
  // the second dataset puts two new rows before the shared ones
  const second = await dataset(h, 'qa-more', [extra[1]!, ...QUESTIONS.slice(0, 4).reverse(), extra[0]!]);
  await evaluation(h, 'E1', first.refs);
  await evaluation(h, 'E2', second.refs);
  await evaluation(h, 'E3', [{ question: 'logged inline' }]);
  const rows = await order(h, ['E1', 'E2', 'E3'], [{ field: 'dataset_order', direction: 'asc' }]);
  assert.deepEqual(rows.slice(0, 4), first.digests, 'the first run dataset, in its order');
  assert.deepEqual(rows.slice(4, 6), [second.digests[0], second.digests[5]], 'then the rows only the second has');
  assert.equal(rows.length, 7, 'then the inline example');
  assert.ok(!first.digests.includes(rows[6]!) && !second.digests.includes(rows[6]!));
});

test('dataset_order breaks the ties of a score sort, and refuses mode "difference"', async (t) => {
  const h = await buildTestApp(t);
  const ds = await dataset(h, 'qa', QUESTIONS);
  await evaluation(h, 'E1', [...ds.refs].reverse());
  // exact is true on the even trials: reversed rows 7, 5, 3, 1 (trials 0, 2, 4, 6)
  const rows = await order(
    h,
    ['E1'],
    [
      { field: 'scores.exact', direction: 'desc' },
      { field: 'dataset_order', direction: 'asc' },
    ],
  );
  assert.deepEqual(
    rows,
    [1, 3, 5, 7, 0, 2, 4, 6].map((i) => ds.digests[i]),
  );
  const refused = await h.post(`${V2}/eval_results/query`, {
    evaluation_call_ids: ['E1'],
    sort_by: [{ field: 'dataset_order', direction: 'asc', mode: 'difference' }],
  });
  assert.equal(refused.statusCode, 400, refused.body);
  assert.match(refused.json().detail ?? refused.body, /difference/);
});
