import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { expr, field, fixtureApp, lit, queryIds, streamQuery } from './calls-fixture.js';

/** docs/spec/calls.md §5.4 CallsFilter and §4.8 query_stats. */

const OP = 'weave:///acme/demo/op/';
const OBJ = 'weave:///acme/demo/object/';

test('§5.4 op_names: exact names and `:*` version wildcards', async (t) => {
  const h = await buildTestApp(t);
  const ops: Array<[string, string]> = [
    ['o1', `${OP}chat:v1`],
    ['o2', `${OP}chat:v2`],
    ['o3', `${OP}chatter:v1`],
    ['o4', `${OP}chat:\u{1F600}`],
    ['o5', 'embed'],
    ['o6', `${OP}chat`],
  ];
  for (const [id, op] of ops) await h.post('/call/start', makeStart({ id, op_name: op }));
  const ids = (opNames: string[]) => queryIds(h, { filter: { op_names: opNames } });
  assert.deepEqual(await ids([`${OP}chat:*`]), ['o1', 'o2', 'o4']);
  assert.deepEqual(await ids([`${OP}chat:v2`]), ['o2']);
  assert.deepEqual(await ids(['embed', `${OP}chatter:*`]), ['o3', 'o5']);
  assert.deepEqual(await ids([`${OP}chat`]), ['o6']);
  assert.deepEqual(await ids([]), ['o1', 'o2', 'o3', 'o4', 'o5', 'o6']);
  assert.deepEqual(await ids(['nothing:*']), []);
  const stats = await h.post('/calls/query_stats', { project_id: PROJECT, filter: { op_names: [`${OP}chat:*`] } });
  assert.equal(stats.json().count, 3);
});

test('§5.4 input_refs / output_refs: nested refs, `:*` wildcards, non-refs match nothing', async (t) => {
  const h = await buildTestApp(t);
  const calls: Array<[string, Record<string, unknown>, unknown]> = [
    ['r1', { model: `${OBJ}Model:abc` }, `${OBJ}Out:1`],
    ['r2', { cfg: { list: ['x', `${OBJ}Model:def`] } }, [{ deep: `${OBJ}Out:2` }]],
    ['r3', { text: `${OBJ}Modelx:abc` }, { plain: 'plain' }],
    ['r4', { a: 'plain', [`${OBJ}Model:abc`]: 'ref as a key' }, null],
  ];
  for (const [id, inputs, output] of calls) {
    await h.post('/call/start', makeStart({ id, inputs }));
    await h.post('/call/end', makeEnd(id, { output }));
  }
  const ids = (filter: Record<string, unknown>) => queryIds(h, { filter });
  assert.deepEqual(await ids({ input_refs: [`${OBJ}Model:abc`] }), ['r1']);
  assert.deepEqual(await ids({ input_refs: [`${OBJ}Model:*`] }), ['r1', 'r2']);
  assert.deepEqual(await ids({ input_refs: [`${OBJ}Model:def`, `${OBJ}Modelx:*`] }), ['r2', 'r3']);
  assert.deepEqual(await ids({ input_refs: ['plain'] }), []);
  assert.deepEqual(await ids({ input_refs: [] }), ['r1', 'r2', 'r3', 'r4']);
  assert.deepEqual(await ids({ output_refs: [`${OBJ}Out:1`] }), ['r1']);
  assert.deepEqual(await ids({ output_refs: [`${OBJ}Out:*`] }), ['r1', 'r2']);
  assert.deepEqual(await ids({ output_refs: ['plain'] }), []);
  assert.deepEqual(await ids({ input_refs: [`${OBJ}Model:*`], output_refs: [`${OBJ}Out:2`] }), ['r2']);
});

test('§5.4 list filters, empty thread_ids/turn_ids match nothing, conditions are ANDed', async (t) => {
  const h = await buildTestApp(t);
  const rows: Array<Record<string, unknown>> = [
    { id: 'f1', trace_id: 'T1', thread_id: 'th1', turn_id: 'f1', wb_run_id: 'acme/demo/run-a' },
    { id: 'f2', trace_id: 'T1', parent_id: 'f1', thread_id: 'th1', turn_id: 'f1' },
    { id: 'f3', trace_id: 'T2', thread_id: 'th2', turn_id: 'f3', wb_run_id: 'acme/demo/run-b' },
    { id: 'f4', trace_id: 'T3' },
  ];
  for (const row of rows) await h.post('/call/start', makeStart(row));
  const userId = (await streamQuery(h, { limit: 1 }))[0]!.wb_user_id as string;
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ trace_ids: ['T1'] }, ['f1', 'f2']],
    [{ trace_ids: ['T1', 'T3'], call_ids: ['f2', 'f4', 'zz'] }, ['f2', 'f4']],
    [{ parent_ids: ['f1'] }, ['f2']],
    [{ thread_ids: ['th1'] }, ['f1', 'f2']],
    [{ thread_ids: [] }, []],
    [{ turn_ids: ['f3'] }, ['f3']],
    [{ turn_ids: [] }, []],
    [{ wb_run_ids: ['acme/demo/run-b'] }, ['f3']],
    [{ wb_user_ids: [userId] }, ['f1', 'f2', 'f3', 'f4']],
    [{ wb_user_ids: ['someone-else'] }, []],
    [{ trace_roots_only: true, trace_ids: ['T1'] }, ['f1']],
    [{ trace_roots_only: false }, ['f1', 'f2', 'f3', 'f4']],
    [{ op_names: null, call_ids: null, trace_roots_only: null }, ['f1', 'f2', 'f3', 'f4']],
    [{ call_ids: [] }, ['f1', 'f2', 'f3', 'f4']],
  ];
  for (const [filter, ids] of cases) assert.deepEqual(await queryIds(h, { filter }), ids, JSON.stringify(filter));
  const both = await queryIds(h, {
    filter: { thread_ids: ['th1'] },
    ...expr({ $eq: [field('parent_id'), lit(null)] }),
  });
  assert.deepEqual(both, ['f1']);
});

test('§4.8 query_stats: same matching as stream_query, storage totals of matching roots, has_more', async (t) => {
  const h = await fixtureApp(t);
  const stats = async (body: Record<string, unknown>) => {
    const res = await h.post('/calls/query_stats', { project_id: PROJECT, ...body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { count: number; total_storage_size_bytes: number | null; has_more: boolean | null };
  };
  assert.deepEqual(await stats({}), { count: 4, total_storage_size_bytes: null, has_more: null });
  assert.deepEqual(await stats({ limit: 4 }), { count: 4, total_storage_size_bytes: null, has_more: false });
  assert.deepEqual(await stats({ limit: 3 }), { count: 3, total_storage_size_bytes: null, has_more: true });
  assert.equal((await stats(expr({ $eq: [field('summary.weave.status'), lit('success')] }))).count, 2);
  assert.equal((await stats({ filter: { trace_roots_only: true }, expand_columns: ['inputs.model'] })).count, 3);
  const sizes = new Map(
    (await streamQuery(h, { include_total_storage_size: true })).map((c) => [
      c.id,
      c.total_storage_size_bytes as number | null,
    ]),
  );
  const chat = await stats({ filter: { op_names: ['chat'] }, include_total_storage_size: true });
  assert.deepEqual(chat, {
    count: 2,
    total_storage_size_bytes: sizes.get('c-0001')! + sizes.get('c-0003')!,
    has_more: null,
  });
  const child = await stats({ filter: { call_ids: ['c-0002'] }, include_total_storage_size: true });
  assert.deepEqual(child, { count: 1, total_storage_size_bytes: 0, has_more: null });
  const none = await stats({ filter: { call_ids: ['nope'] }, include_total_storage_size: true, limit: 5 });
  assert.deepEqual(none, { count: 0, total_storage_size_bytes: 0, has_more: false });
  await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['c-0002'] });
  assert.equal((await stats({})).count, 3);
  const after = await stats({ filter: { call_ids: ['c-0001'] }, include_total_storage_size: true });
  assert.ok(after.total_storage_size_bytes! < sizes.get('c-0001')!);
  const bad = await h.post('/calls/query_stats', {
    project_id: PROJECT,
    ...expr({ $eq: [field('storage_size_bytes'), lit(1)] }),
  });
  assert.equal(bad.statusCode, 422);
  assert.equal(typeof bad.json().reason, 'string');
});
