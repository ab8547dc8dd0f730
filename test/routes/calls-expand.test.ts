import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';
import { expr, field, lit, queryIds, streamQuery } from './calls-fixture.js';

/** docs/spec/calls.md §5.6 expand_columns: output expansion and filters/sorts through object refs. */

const OBJ = `weave:///${PROJECT}/object/`;

async function createObject(h: TestApp, objectId: string, val: unknown): Promise<string> {
  const res = await h.post('/obj/create', { obj: { project_id: PROJECT, object_id: objectId, val } });
  assert.equal(res.statusCode, 200, res.body);
  return `${OBJ}${objectId}:${res.json().digest}`;
}

interface Refs {
  model1: string;
  model2: string;
  config: string;
}

async function expandApp(t: TestContext): Promise<{ h: TestApp; refs: Refs }> {
  const h = await buildTestApp(t);
  const config = await createObject(h, 'Config', { depth: 3 });
  const model1 = await createObject(h, 'Model', { temperature: 0.5, name: 'm1' });
  const model2 = await createObject(h, 'Model', { temperature: 0.9, config });
  const calls: Array<[string, unknown]> = [
    ['e1', model1],
    ['e2', model2],
    ['e3', `${OBJ}Model:nope`],
    ['e4', { temperature: 0.7 }],
    ['e5', model1.replace(`/${PROJECT}/`, '/acme/other/')],
  ];
  for (const [id, model] of calls) await h.post('/call/start', makeStart({ id, inputs: { model, other: model } }));
  return { h, refs: { model1, model2, config } };
}

test('§5.6 expand_columns replaces resolvable refs by their object plus _ref; others stay', async (t) => {
  const { h, refs } = await expandApp(t);
  const calls = await streamQuery(h, { expand_columns: ['inputs.model', 'inputs.missing', 'bogus.x', 'inputs'] });
  const inputs = new Map(calls.map((c) => [c.id, c.inputs as Record<string, unknown>]));
  assert.deepEqual(inputs.get('e1'), {
    model: { temperature: 0.5, name: 'm1', _ref: refs.model1 },
    other: refs.model1,
  });
  assert.deepEqual(inputs.get('e2')!.model, { temperature: 0.9, config: refs.config, _ref: refs.model2 });
  assert.equal(inputs.get('e3')!.model, `${OBJ}Model:nope`);
  assert.deepEqual(inputs.get('e4')!.model, { temperature: 0.7 });
  assert.equal(inputs.get('e5')!.model, refs.model1.replace(`/${PROJECT}/`, '/acme/other/'));
  const nested = await streamQuery(h, {
    expand_columns: ['inputs.model.config', 'inputs.model'],
    filter: { call_ids: ['e2'] },
  });
  assert.deepEqual((nested[0]!.inputs as { model: unknown }).model, {
    temperature: 0.9,
    config: { depth: 3, _ref: refs.config },
    _ref: refs.model2,
  });
  const kept = await streamQuery(h, {
    expand_columns: ['inputs.model'],
    return_expanded_column_values: false,
    filter: { call_ids: ['e1'] },
  });
  assert.equal((kept[0]!.inputs as { model: unknown }).model, refs.model1);
});

test('§5.6 filters and sorts traverse expanded refs; without expansion they see the stored JSON', async (t) => {
  const { h } = await expandApp(t);
  const hot = expr({ $gt: [field('inputs.model.temperature'), lit(0.6)] });
  assert.deepEqual(await queryIds(h, { ...hot, expand_columns: ['inputs.model'] }), ['e2', 'e4']);
  assert.deepEqual(await queryIds(h, hot), ['e4']);
  assert.deepEqual(
    await queryIds(h, { ...hot, expand_columns: ['inputs.model'], return_expanded_column_values: false }),
    ['e2', 'e4'],
  );
  const sort = { sort_by: [{ field: 'inputs.model.temperature', direction: 'desc' }] };
  assert.deepEqual(await queryIds(h, { ...sort, expand_columns: ['inputs.model'] }), ['e2', 'e4', 'e1', 'e5', 'e3']);
  assert.deepEqual(await queryIds(h, sort), ['e4', 'e5', 'e3', 'e2', 'e1']);
  const depth = expr({ $eq: [field('inputs.model.config.depth'), lit(3)] });
  assert.deepEqual(await queryIds(h, { ...depth, expand_columns: ['inputs.model', 'inputs.model.config'] }), ['e2']);
  assert.deepEqual(await queryIds(h, { ...depth, expand_columns: ['inputs.model'] }), []);
  const named = expr({ $eq: [field('inputs.model.name'), lit('m1')] });
  assert.deepEqual(await queryIds(h, { ...named, expand_columns: ['inputs.model'] }), ['e1']);
  const exists = expr({ $eq: [{ $convert: { input: field('inputs.model.temperature'), to: 'exists' } }, lit(false)] });
  assert.deepEqual(await queryIds(h, { ...exists, expand_columns: ['inputs.model'] }), ['e3', 'e5']);
  const stats = await h.post('/calls/query_stats', { project_id: PROJECT, ...hot, expand_columns: ['inputs.model'] });
  assert.equal(stats.json().count, 2);
  // the unexpanded sibling `inputs.other` holds the same refs and is not traversed
  assert.deepEqual(
    await queryIds(h, {
      ...expr({ $gt: [field('inputs.other.temperature'), lit(0.6)] }),
      expand_columns: ['inputs.model'],
    }),
    ['e4'],
  );
});

test('§5.6 a deleted object version no longer expands', async (t) => {
  const { h, refs } = await expandApp(t);
  const digest = refs.config.split(':').pop()!;
  const del = await h.post('/obj/delete', { project_id: PROJECT, object_id: 'Config', digests: [digest] });
  assert.equal(del.statusCode, 200, del.body);
  const [call] = await streamQuery(h, {
    expand_columns: ['inputs.model', 'inputs.model.config'],
    filter: { call_ids: ['e2'] },
  });
  assert.ok(call !== undefined);
  assert.equal((call.inputs as { model: { config: unknown } }).model.config, refs.config);
  const depth = expr({ $eq: [field('inputs.model.config.depth'), lit(3)] });
  assert.deepEqual(await queryIds(h, { ...depth, expand_columns: ['inputs.model', 'inputs.model.config'] }), []);
});

test('§5.6 refs with an extra path expand to what they name: dataset rows, attributes; a path that misses stays a ref', async (t) => {
  const h = await buildTestApp(t);
  const rows = [
    { q: '2+2', a: 4 },
    { q: 'capital of France', a: 'Paris', score: 1.5 },
  ];
  const table = await h.post('/table/create', { table: { project_id: PROJECT, rows } });
  assert.equal(table.statusCode, 200, table.body);
  const { digest: tableDigest, row_digests: rowDigests } = table.json() as { digest: string; row_digests: string[] };
  const dataset = await createObject(h, 'qa', {
    _type: 'Dataset',
    _class_name: 'Dataset',
    _bases: ['Object', 'BaseModel'],
    name: 'qa',
    rows: `weave:///${PROJECT}/table/${tableDigest}`,
  });
  const rowRef = (i: number) => `${dataset}/attr/rows/id/${rowDigests[i]}`;
  const model = await createObject(h, 'Model', { temperature: 0.5, config: { depth: 3 } });
  const cases: Array<[string, string]> = [
    ['r0', rowRef(0)],
    ['r1', rowRef(1)],
    ['attr', `${model}/attr/config`],
    ['key', `${model}/attr/config/key/depth`],
    ['miss', `${dataset}/attr/rows/id/${'0'.repeat(43)}`],
    ['noid', `${dataset}/attr/rows`],
  ];
  for (const [id, example] of cases) await h.post('/call/start', makeStart({ id, inputs: { example } }));
  const calls = await streamQuery(h, { expand_columns: ['inputs.example'] });
  const example = new Map(calls.map((c) => [c.id, (c.inputs as { example: unknown }).example]));
  assert.deepEqual(example.get('r0'), { ...rows[0], _ref: rowRef(0) });
  assert.deepEqual(example.get('r1'), { ...rows[1], _ref: rowRef(1) });
  assert.deepEqual(example.get('attr'), { depth: 3, _ref: `${model}/attr/config` });
  assert.equal(example.get('key'), 3);
  assert.equal(example.get('miss'), `${dataset}/attr/rows/id/${'0'.repeat(43)}`);
  // the value at the path is the table ref itself, which does not expand
  assert.equal(example.get('noid'), `weave:///${PROJECT}/table/${tableDigest}`);
});
