import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/**
 * What `eval_results/query` reads from the store (docs/spec/evaluations.md §4.1): dataset-row refs
 * are resolved after pagination, for the page's rows only, and `include_costs` prices the trials
 * from the calls already loaded instead of reading each trial's call again. Counted by wrapping the
 * real store's methods for the duration of one request.
 */

type Json = Record<string, any>;
const V2 = `/v2/${PROJECT}`;
const MODEL = `weave:///${PROJECT}/object/gpt_small:Md1`;
const ROWS = 6;
const PRICE = { prompt_token_cost: 0.001, completion_token_cost: 0.002 };

async function ok(h: TestApp, url: string, body: unknown): Promise<Json> {
  const res = await h.post(url, body);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json();
}

async function call(h: TestApp, start: Json, end: Json): Promise<void> {
  await ok(h, '/call/start', makeStart({ trace_id: 'E', ...start }));
  await ok(h, '/call/end', makeEnd(start.id as string, end));
}

const promptTokens = (i: number): number => 10 * (i + 1);

/** A dataset of ROWS rows and one evaluation `E` with a trial per row, each with a priced predict call. */
async function seed(h: TestApp): Promise<{ rows: Json[]; digests: string[] }> {
  await ok(h, '/cost/create', {
    project_id: PROJECT,
    costs: { 'my-llm': { ...PRICE, effective_date: '2020-01-01T00:00:00Z' } },
  });
  const rows = Array.from({ length: ROWS }, (_, i) => ({ q: `question ${i}`, i }));
  const table = await ok(h, '/table/create', { table: { project_id: PROJECT, rows } });
  const dataset = await ok(h, '/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'ds',
      val: { _type: 'Dataset', _class_name: 'Dataset', name: 'ds', rows: `weave:///${PROJECT}/table/${table.digest}` },
    },
  });
  const digests = table.row_digests as string[];
  await call(h, { id: 'E', op_name: 'Evaluation.evaluate', inputs: { model: MODEL } }, { output: {} });
  for (let i = 0; i < ROWS; i += 1) {
    const example = `weave:///${PROJECT}/object/ds:${dataset.digest}/attr/rows/id/${digests[i]}`;
    await call(
      h,
      { id: `T${i}`, parent_id: 'E', op_name: 'Evaluation.predict_and_score', inputs: { example, model: MODEL } },
      { output: { output: i, scores: { exact: i % 2 === 0 } } },
    );
    await call(
      h,
      { id: `P${i}`, parent_id: `T${i}`, op_name: 'Model.predict', inputs: { self: MODEL } },
      {
        output: i,
        summary: {
          usage: { 'my-llm': { prompt_tokens: promptTokens(i), completion_tokens: 5, requests: 1, total_tokens: 1 } },
        },
      },
    );
  }
  return { rows, digests };
}

/**
 * Counts the calls of `object[method]` (the real method still runs) until `restore`; `weigh` says
 * how much one call counts (default 1).
 */
function counting<T extends object>(
  object: T,
  method: keyof T & string,
  weigh: (...args: any[]) => number = () => 1,
): { count(): number; restore(): void } {
  const original = object[method] as (...args: unknown[]) => unknown;
  let count = 0;
  Object.defineProperty(object, method, {
    configurable: true,
    writable: true,
    value: (...args: unknown[]) => {
      count += weigh(...args);
      return original.apply(object, args);
    },
  });
  return { count: () => count, restore: () => Reflect.deleteProperty(object, method) };
}

async function countedQuery(h: TestApp, body: Json): Promise<{ res: Json; reads: Record<string, number> }> {
  const counters = {
    'tables.row': counting(h.store.tables, 'row'),
    // a table read counts the rows it asks for; a read of the whole table counts as all of them
    'tables.query rows': counting(h.store.tables, 'query', (q: Json) => q.row_digests?.length ?? Infinity),
    'objects.findVersion': counting(h.store.objects, 'findVersion'),
    'calls.read': counting(h.store.calls, 'read'),
  };
  try {
    const res = await ok(h, `${V2}/eval_results/query`, { evaluation_call_ids: ['E'], ...body });
    return { res, reads: Object.fromEntries(Object.entries(counters).map(([name, c]) => [name, c.count()])) };
  } finally {
    for (const c of Object.values(counters)) c.restore();
  }
}

const rowsRead = (reads: Record<string, number>): number => reads['tables.row']! + reads['tables.query rows']!;

test('resolve_row_refs reads only the rows of the page, after paging', async (t) => {
  const h = await buildTestApp(t);
  const { rows, digests } = await seed(h);
  const byDigest = new Map(digests.map((digest, i) => [digest, rows[i]]));
  const sorted = [...digests].sort();

  const { res, reads } = await countedQuery(h, {
    include_raw_data_rows: true,
    resolve_row_refs: true,
    limit: 2,
    offset: 2,
  });
  assert.equal(res.total_rows, ROWS);
  assert.deepEqual(
    res.rows.map((row: Json) => row.row_digest),
    sorted.slice(2, 4),
  );
  assert.deepEqual(
    res.rows.map((row: Json) => row.raw_data_row),
    sorted.slice(2, 4).map((digest) => byDigest.get(digest)),
  );
  assert.deepEqual(res.warnings, []);
  assert.equal(rowsRead(reads), 2, `only the page's rows are read: ${JSON.stringify(reads)}`);
  assert.equal(reads['objects.findVersion'], 1, `the dataset is read once, not per row: ${JSON.stringify(reads)}`);

  const unresolved = await countedQuery(h, { include_raw_data_rows: true, limit: 2 });
  assert.match(unresolved.res.rows[0].raw_data_row, /\/attr\/rows\/id\//, 'the ref itself without resolve_row_refs');
  assert.equal(rowsRead(unresolved.reads), 0);
  assert.equal(unresolved.reads['objects.findVersion'], 0);
});

test('a row ref that names no row of the dataset, or an unknown dataset, stays a ref with a warning', async (t) => {
  const h = await buildTestApp(t);
  const { rows, digests } = await seed(h);
  const datasetRef = (
    await ok(h, `${V2}/eval_results/query`, { evaluation_call_ids: ['E'], include_raw_data_rows: true })
  ).rows[0].raw_data_row.split('/attr/')[0] as string;
  const badRefs = [
    `${datasetRef}/attr/rows/id/${'0'.repeat(43)}`,
    `weave:///${PROJECT}/object/ds:${'1'.repeat(43)}/attr/rows/id/${'2'.repeat(43)}`,
    `weave:///other/p/object/ds:${datasetRef.split(':').pop()}/attr/rows/id/${'3'.repeat(43)}`,
  ];
  for (const [i, example] of badRefs.entries()) {
    await call(
      h,
      { id: `X${i}`, parent_id: 'E', op_name: 'Evaluation.predict_and_score', inputs: { example, model: MODEL } },
      { output: { output: null, scores: {} } },
    );
  }
  const res = await ok(h, `${V2}/eval_results/query`, {
    evaluation_call_ids: ['E'],
    include_raw_data_rows: true,
    resolve_row_refs: true,
  });
  assert.equal(res.total_rows, ROWS + badRefs.length);
  const raw = new Map<string, unknown>(res.rows.map((row: Json) => [row.row_digest, row.raw_data_row]));
  for (const [i, digest] of digests.entries()) assert.deepEqual(raw.get(digest), rows[i]);
  for (const ref of badRefs) assert.equal(raw.get(ref.split('/').pop()!), ref);
  assert.deepEqual([...res.warnings].sort(), badRefs.map((ref) => `Could not resolve dataset row ref ${ref}`).sort());
});

test('a sort on inputs.* still reads every row it orders, and pages the resolved rows', async (t) => {
  const h = await buildTestApp(t);
  const { rows } = await seed(h);
  const { res } = await countedQuery(h, {
    include_raw_data_rows: true,
    resolve_row_refs: true,
    sort_by: [{ field: 'inputs.i', direction: 'desc' }],
    limit: 3,
  });
  assert.deepEqual(
    res.rows.map((row: Json) => row.raw_data_row),
    [rows[5], rows[4], rows[3]],
  );
});

test('include_costs prices the trials from the loaded calls: no call read per trial, equal to /calls/query costs', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const { res, reads } = await countedQuery(h, { include_costs: true, include_summary: true, limit: 2, offset: 1 });
  assert.equal(reads['calls.read'], 0, 'no read per trial');

  const listed = await ok(h, '/calls/query', {
    project_id: PROJECT,
    filter: { op_names: ['Model.predict'] },
    include_costs: true,
  });
  const costOf = new Map<string, number>();
  for (const c of listed.calls as Json[]) {
    const entry = c.summary.weave.costs['my-llm'];
    costOf.set(c.id, entry.prompt_tokens_total_cost + entry.completion_tokens_total_cost);
  }
  assert.equal(costOf.size, ROWS);
  for (const row of res.rows as Json[]) {
    const trial = row.evaluations[0].trials[0];
    const expected = costOf.get(trial.predict_call_id)!;
    assert.ok(Math.abs(trial.total_cost - expected) < 1e-12, `${trial.total_cost} vs ${expected}`);
    const i = Number(trial.model_output);
    assert.ok(
      Math.abs(expected - (promptTokens(i) * PRICE.prompt_token_cost + 5 * PRICE.completion_token_cost)) < 1e-12,
    );
  }
  const total = [...costOf.values()].reduce((a, b) => a + b, 0);
  const summary = res.summary.evaluations[0];
  assert.ok(Math.abs(summary.predict_total_cost - total) < 1e-12, 'the summary prices every trial, not only the page');

  const without = await countedQuery(h, { include_summary: true, limit: 2 });
  assert.equal(without.res.rows[0].evaluations[0].trials[0].total_cost, null);
  assert.equal(without.res.summary.evaluations[0].predict_total_cost, null);
});
