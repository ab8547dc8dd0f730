import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { basicAuth, buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';

/** v2 object APIs (docs/spec/evaluations.md §2; checklist items 1–21). */

type Json = Record<string, any>;
const V2 = `/v2/${PROJECT}`;
const SOURCE = 'def f():\n    return 1\n';
const MODEL_SOURCE =
  'import weave\n\nclass TestModel(weave.Model):\n    @weave.op\n    def predict(self, q: str) -> str:\n        return q\n';

async function ok(pending: Promise<LightMyRequestResponse>): Promise<Json> {
  const res = await pending;
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const create = (h: TestApp, family: string, body: Json): Promise<Json> => ok(h.post(`${V2}/${family}`, body));
const read = (h: TestApp, family: string, id: string, digest: string): Promise<LightMyRequestResponse> =>
  h.get(`${V2}/${family}/${id}/versions/${digest}`);
const del = (h: TestApp, family: string, id: string, query = ''): Promise<LightMyRequestResponse> =>
  h.app.inject({
    method: 'DELETE',
    url: `${V2}/${family}/${id}${query}`,
    headers: { authorization: basicAuth(h.aliceKey) },
  });
const objRead = async (h: TestApp, id: string, digest: string): Promise<Json> =>
  (await ok(h.post('/obj/read', { project_id: PROJECT, object_id: id, digest }))).obj;

async function list(h: TestApp, family: string, query = ''): Promise<Json[]> {
  const res = await h.get(`${V2}/${family}${query}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/jsonl/);
  return parseJsonl(res.body);
}

const createModel = (h: TestApp, body: Json = {}): Promise<Json> =>
  create(h, 'models', { name: 'Test Model', source_code: MODEL_SOURCE, ...body });
const createScorer = (h: TestApp, body: Json = {}): Promise<Json> =>
  create(h, 'scorers', {
    name: 'Exact Match',
    description: 'compares',
    op_source_code: 'def score(output, target):\n    return output == target\n',
    ...body,
  });

test('1-4: op create derives the id, repeats keep the digest, new source adds a version; read returns the code verbatim', async (t) => {
  const h = await buildTestApp(t);
  const first = await create(h, 'ops', { name: 'My Op', source_code: SOURCE });
  assert.equal(first.object_id, 'my_op');
  assert.equal(first.version_index, 0);
  assert.ok(first.digest.length > 0);
  assert.deepEqual(await create(h, 'ops', { name: 'My Op', source_code: SOURCE }), first);
  const second = await create(h, 'ops', { name: 'My Op', source_code: 'def f():\n    return 2\n' });
  assert.equal(second.version_index, 1);
  assert.notEqual(second.digest, first.digest);

  const view = await ok(read(h, 'ops', 'my_op', first.digest));
  assert.deepEqual(Object.keys(view).sort(), ['code', 'created_at', 'digest', 'object_id', 'version_index']);
  assert.equal(view.code, SOURCE);
  assert.match(view.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  assert.equal((await ok(read(h, 'ops', 'my_op', `${second.digest}?eager=true`))).code, 'def f():\n    return 2\n');
  assert.equal((await ok(read(h, 'ops', 'my_op', 'latest'))).digest, second.digest);
  assert.equal((await ok(read(h, 'ops', 'my_op', 'v0'))).digest, first.digest);

  const stored = await objRead(h, 'my_op', first.digest);
  assert.equal(stored.kind, 'op');
  assert.equal(stored.base_object_class, null);
  assert.deepEqual(Object.keys(stored.val).sort(), ['_type', 'files', 'weave_type']);
  assert.equal(stored.val._type, 'CustomWeaveType');
  assert.deepEqual(stored.val.weave_type, { type: 'Op' });
  assert.deepEqual(Object.keys(stored.val.files), ['obj.py']);
});

test('5: an op without name or source gets id "Op" and placeholder code', async (t) => {
  const h = await buildTestApp(t);
  const op = await create(h, 'ops', {});
  assert.equal(op.object_id, 'Op');
  const view = await ok(read(h, 'ops', 'Op', op.digest));
  assert.ok(view.code.length > 0);
  assert.equal((await create(h, 'ops', { source_code: '' })).digest, op.digest);
});

test('2.2: object ids from names; empty or illegal ids → 422, over 128 characters → 400', async (t) => {
  const h = await buildTestApp(t);
  assert.equal((await create(h, 'ops', { name: 'user/model', source_code: SOURCE })).object_id, 'user_model');
  assert.equal((await create(h, 'ops', { name: 'TestModel', source_code: SOURCE })).object_id, 'testmodel');
  const illegal = await h.post(`${V2}/ops`, { name: 'bad:name', source_code: SOURCE });
  assert.equal(illegal.statusCode, 422, illegal.body);
  assert.equal(typeof illegal.json().reason, 'string');
  assert.equal((await h.post(`${V2}/datasets`, { name: '', rows: [] })).statusCode, 422);
  const long = await h.post(`${V2}/models`, { name: 'm'.repeat(129), source_code: SOURCE });
  assert.equal(long.statusCode, 400, long.body);
  // nothing was written for the refused creates
  assert.deepEqual(await list(h, 'models'), []);
});

test('v2 bodies ignore unknown fields; wrong types → 422', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(
    (await create(h, 'ops', { name: 'x', source_code: SOURCE, project_id: 'ignored', extra: 1 })).object_id,
    'x',
  );
  assert.equal((await h.post(`${V2}/ops`, { name: 5 })).statusCode, 422);
});

test('7: reading an unknown digest of any family → 404 with a reason', async (t) => {
  const h = await buildTestApp(t);
  await create(h, 'ops', { name: 'op', source_code: SOURCE });
  for (const family of ['ops', 'datasets', 'scorers', 'models', 'evaluations']) {
    const res = await read(h, family, 'op', 'abcdef0123456789');
    assert.equal(res.statusCode, 404, `${family} ${res.body}`);
    assert.equal(typeof res.json().reason, 'string');
  }
});

test('6: op list is JSONL of OpReadRes, object_id ascending then newest first; limit and offset page it', async (t) => {
  const h = await buildTestApp(t);
  const a0 = await create(h, 'ops', { name: 'a', source_code: 'def a():\n    return 0\n' });
  const a1 = await create(h, 'ops', { name: 'a', source_code: 'def a():\n    return 1\n' });
  const b0 = await create(h, 'ops', { name: 'b', source_code: SOURCE });
  const all = await list(h, 'ops');
  assert.deepEqual(
    all.map((line) => line.digest),
    [a1.digest, a0.digest, b0.digest],
  );
  assert.deepEqual(Object.keys(all[0]!).sort(), ['code', 'created_at', 'digest', 'object_id', 'version_index']);
  assert.equal(all[2]!.code, SOURCE);
  assert.equal((await list(h, 'ops', '?limit=2')).length, 2);
  assert.deepEqual(
    (await list(h, 'ops', '?offset=1&limit=1')).map((line) => line.digest),
    [a0.digest],
  );
  assert.deepEqual(await list(h, 'ops', '?limit=0'), []);
  assert.equal((await h.get(`${V2}/ops?limit=abc`)).statusCode, 422);
  assert.equal((await h.get(`${V2}/ops?offset=-1`)).statusCode, 400);
});

test('8: deleting one op digest leaves the other version readable; the deleted one reads 404 with deleted_at', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await create(h, 'ops', { name: 'My Op', source_code: SOURCE });
  const d1 = await create(h, 'ops', { name: 'My Op', source_code: 'def g():\n    pass\n' });
  assert.deepEqual(await ok(del(h, 'ops', 'my_op', `?digests=${d0.digest}`)), { num_deleted: 1 });
  const gone = await read(h, 'ops', 'my_op', d0.digest);
  assert.equal(gone.statusCode, 404);
  assert.equal(typeof gone.json().deleted_at, 'string');
  await ok(read(h, 'ops', 'my_op', d1.digest));
  assert.deepEqual(
    (await list(h, 'ops')).map((line) => line.digest),
    [d1.digest],
  );
});

test('9-10: delete without digests removes every version; unknown object or digest → 404 with nothing deleted', async (t) => {
  const h = await buildTestApp(t);
  for (const temperature of [0.1, 0.2, 0.3]) await createModel(h, { attributes: { temperature } });
  await createModel(h, { name: 'Other' });
  const unknownDigest = await del(
    h,
    'models',
    'test_model',
    `?digests=${(await list(h, 'models'))[1]!.digest}&digests=nope`,
  );
  assert.equal(unknownDigest.statusCode, 404, unknownDigest.body);
  assert.equal((await list(h, 'models')).length, 4);
  assert.equal((await del(h, 'models', 'no_such_model')).statusCode, 404);
  assert.deepEqual(await ok(del(h, 'models', 'test_model')), { num_deleted: 3 });
  assert.deepEqual(
    (await list(h, 'models')).map((line) => line.object_id),
    ['other'],
  );
});

test('2.1 our choice: family routes do not see other families (read and delete → 404)', async (t) => {
  const h = await buildTestApp(t);
  const model = await createModel(h);
  assert.equal((await read(h, 'scorers', 'test_model', model.digest)).statusCode, 404);
  assert.equal((await read(h, 'ops', 'test_model', model.digest)).statusCode, 404);
  assert.equal((await del(h, 'datasets', 'test_model')).statusCode, 404);
  await ok(read(h, 'models', 'test_model', model.digest));
});

test('11: dataset create stores a table and the exact value; read echoes name, description and the table ref', async (t) => {
  const h = await buildTestApp(t);
  const rows = [
    { q: 'a', n: 1.0 },
    { q: 'b', n: 2 },
  ];
  const created = await create(h, 'datasets', { name: 'Golden Set', description: 'two rows', rows });
  assert.equal(created.object_id, 'golden_set');
  assert.deepEqual(Object.keys(created).sort(), ['digest', 'object_id', 'version_index']);
  const view = await ok(read(h, 'datasets', 'golden_set', created.digest));
  assert.equal(view.name, 'Golden Set');
  assert.equal(view.description, 'two rows');
  const tableDigest = view.rows.replace(`weave:///${PROJECT}/table/`, '');
  assert.equal(view.rows, `weave:///${PROJECT}/table/${tableDigest}`);
  const table = await ok(h.post('/table/query', { project_id: PROJECT, digest: tableDigest }));
  assert.deepEqual(
    table.rows.map((row: Json) => row.val.q),
    ['a', 'b'],
  );

  const stored = await objRead(h, 'golden_set', created.digest);
  assert.equal(stored.base_object_class, 'Dataset');
  assert.equal(stored.kind, 'object');
  assert.deepEqual(stored.val, {
    _type: 'Dataset',
    _class_name: 'Dataset',
    _bases: ['Object', 'BaseModel'],
    name: 'Golden Set',
    description: 'two rows',
    rows: view.rows,
  });
});

test('12-13: a dataset without a name is "Dataset" (description null); without rows → 422', async (t) => {
  const h = await buildTestApp(t);
  const created = await create(h, 'datasets', { name: null, rows: [] });
  assert.equal(created.object_id, 'Dataset');
  const view = await ok(read(h, 'datasets', 'Dataset', created.digest));
  assert.equal(view.name, 'Dataset');
  assert.equal(view.description, null);
  assert.equal((await objRead(h, 'Dataset', created.digest)).val.description, null);
  assert.equal((await h.post(`${V2}/datasets`, { name: 'x' })).statusCode, 422);
  const numberRow = await h.post(`${V2}/datasets`, { name: 'x', rows: [{ a: 1 }, 5] });
  assert.equal(numberRow.statusCode, 422, numberRow.body);
  assert.deepEqual(numberRow.json().detail[0].loc, ['body', 'rows', '1']);
});

test('14, 16: scorer create returns its ref; read keeps the name case; /obj/read shows the Scorer value and the two ops exist', async (t) => {
  const h = await buildTestApp(t);
  const created = await createScorer(h);
  assert.equal(created.object_id, 'exact_match');
  assert.equal(created.scorer, `weave:///${PROJECT}/object/exact_match:${created.digest}`);
  const view = await ok(read(h, 'scorers', 'exact_match', created.digest));
  assert.equal(view.name, 'Exact Match');
  assert.equal(view.description, 'compares');
  assert.match(view.score_op, new RegExp(`^weave:///${PROJECT}/op/exact_match_score:`));

  const stored = await objRead(h, 'exact_match', created.digest);
  assert.equal(stored.base_object_class, 'Scorer');
  assert.equal(stored.val._type, 'Scorer');
  assert.deepEqual(Object.keys(stored.val).sort(), [
    '_bases',
    '_class_name',
    '_type',
    'column_map',
    'description',
    'name',
    'score',
    'summarize',
  ]);
  assert.equal(stored.val.column_map, null);
  assert.match(stored.val.summarize, new RegExp(`^weave:///${PROJECT}/op/exact_match_summarize:`));
  const ops = (await list(h, 'ops')).map((line) => line.object_id);
  assert.deepEqual(ops, ['exact_match_score', 'exact_match_summarize']);
  const scoreOp = await ok(read(h, 'ops', 'exact_match_score', view.score_op.split(':').at(-1)));
  assert.equal(scoreOp.code, 'def score(output, target):\n    return output == target\n');
  assert.deepEqual(await createScorer(h), created);
});

test('15: scorer create without op_source_code or name → 422', async (t) => {
  const h = await buildTestApp(t);
  assert.equal((await h.post(`${V2}/scorers`, { name: 's' })).statusCode, 422);
  assert.equal((await h.post(`${V2}/scorers`, { op_source_code: SOURCE })).statusCode, 422);
});

test('17: lists are scoped by family; SDK-published Model/Scorer/Evaluation/Dataset subclasses are listed', async (t) => {
  const h = await buildTestApp(t);
  await createScorer(h);
  await createModel(h);
  await create(h, 'datasets', { name: 'd', rows: [] });
  await create(h, 'evaluations', { name: 'e', dataset: 'weave:///acme/demo/object/d:abc' });
  const publish = (objectId: string, val: Json): Promise<Json> =>
    ok(h.post('/obj/create', { obj: { project_id: PROJECT, object_id: objectId, val } }));
  await publish('judge', {
    _type: 'LLMAsAJudgeScorer',
    _class_name: 'LLMAsAJudgeScorer',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'judge',
    score: 'weave:///acme/demo/op/judge_score:abc',
  });
  await publish('my_model', {
    _type: 'MyModel',
    _class_name: 'MyModel',
    _bases: ['Model', 'Object', 'BaseModel'],
    name: 'mine',
    temperature: 1,
  });
  await publish('sdk_eval', {
    _type: 'Evaluation',
    _class_name: 'Evaluation',
    _bases: ['Object', 'BaseModel'],
    name: 'sdk',
    dataset: 'weave:///acme/demo/object/d:abc',
    scorers: [],
    trials: 3,
  });
  await publish('sdk_rows', {
    _type: 'MyDataset',
    _class_name: 'MyDataset',
    _bases: ['Dataset', 'Object', 'BaseModel'],
    rows: 'weave:///acme/demo/table/abc',
  });

  const ids = async (family: string): Promise<string[]> => (await list(h, family)).map((line) => line.object_id);
  assert.deepEqual(await ids('scorers'), ['exact_match', 'judge']);
  assert.deepEqual(await ids('models'), ['my_model', 'test_model']);
  assert.deepEqual(await ids('evaluations'), ['e', 'sdk_eval']);
  assert.deepEqual(await ids('datasets'), ['d', 'sdk_rows']);
  const judge = (await list(h, 'scorers')).find((line) => line.object_id === 'judge')!;
  assert.equal(judge.score_op, 'weave:///acme/demo/op/judge_score:abc');
  const sdkModel = (await list(h, 'models')).find((line) => line.object_id === 'my_model')!;
  assert.equal(sdkModel.source_code, '');
  assert.deepEqual(sdkModel.attributes, { temperature: 1 });
  const sdkEval = (await list(h, 'evaluations')).find((line) => line.object_id === 'sdk_eval')!;
  assert.equal(sdkEval.trials, 3);
  assert.equal(sdkEval.evaluate_op, null);
});

test('18: model create derives the id and returns its ref; read returns source and attributes; /obj/read has the exact value', async (t) => {
  const h = await buildTestApp(t);
  const created = await createModel(h, {
    description: 'echo',
    attributes: { temperature: 0.7, name: 'ignored', files: 'ignored' },
  });
  assert.equal(created.object_id, 'test_model');
  assert.equal(created.model_ref, `weave:///${PROJECT}/object/test_model:${created.digest}`);
  const view = await ok(read(h, 'models', 'test_model', created.digest));
  assert.equal(view.name, 'Test Model');
  assert.equal(view.description, 'echo');
  assert.equal(view.source_code, MODEL_SOURCE);
  assert.deepEqual(view.attributes, { temperature: 0.7 });
  const stored = await objRead(h, 'test_model', created.digest);
  assert.equal(stored.base_object_class, 'Model');
  assert.equal(typeof stored.val.files['obj.py'], 'string');
  assert.deepEqual(
    { ...stored.val, files: null },
    {
      _type: 'Model',
      _class_name: 'Model',
      _bases: ['Object', 'BaseModel'],
      name: 'Test Model',
      description: 'echo',
      files: null,
      temperature: 0.7,
    },
  );
});

test('19, 2.6: a model without attributes reads attributes null; a Model without obj.py reads 400 but lists with ""', async (t) => {
  const h = await buildTestApp(t);
  const created = await createModel(h);
  assert.equal((await ok(read(h, 'models', 'test_model', created.digest))).attributes, null);
  const bare = await ok(
    h.post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'bare',
        val: { _type: 'Model', _class_name: 'Model', _bases: ['Object', 'BaseModel'], name: 'bare' },
      },
    }),
  );
  const res = await read(h, 'models', 'bare', bare.digest);
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().reason, 'Model bare has no source file');
  assert.equal((await list(h, 'models')).find((line) => line.object_id === 'bare')!.source_code, '');
});

test('20: evaluation defaults: trials 1, scorers [], op refs set, the stored value exact; re-create gives the same version', async (t) => {
  const h = await buildTestApp(t);
  const dataset = `weave:///${PROJECT}/object/d:abc`;
  const created = await create(h, 'evaluations', { name: 'My Eval', dataset });
  assert.equal(created.object_id, 'my_eval');
  assert.equal(created.evaluation_ref, `weave:///${PROJECT}/object/my_eval:${created.digest}`);
  const view = await ok(read(h, 'evaluations', 'my_eval', created.digest));
  assert.equal(view.trials, 1);
  assert.deepEqual(view.scorers, []);
  assert.equal(view.dataset, dataset);
  assert.equal(view.description, null);
  assert.equal(view.evaluation_name, null);
  for (const [field, op] of [
    ['evaluate_op', 'evaluate'],
    ['predict_and_score_op', 'predict_and_score'],
    ['summarize_op', 'summarize'],
  ] as const) {
    assert.match(view[field], new RegExp(`^weave:///${PROJECT}/op/my_eval\\.${op}:`));
  }
  const stored = await objRead(h, 'my_eval', created.digest);
  assert.equal(stored.base_object_class, 'Evaluation');
  assert.deepEqual(stored.val, {
    _type: 'Evaluation',
    _class_name: 'Evaluation',
    _bases: ['Object', 'BaseModel'],
    name: 'My Eval',
    description: null,
    dataset,
    scorers: [],
    trials: 1,
    evaluation_name: null,
    metadata: null,
    preprocess_model_input: null,
    evaluate: view.evaluate_op,
    predict_and_score: view.predict_and_score_op,
    summarize: view.summarize_op,
  });
  assert.deepEqual(await create(h, 'evaluations', { name: 'My Eval', dataset }), created);
});

test('21: evaluation read echoes dataset, scorers in order, trials and evaluation_name; trials < 1 → 400', async (t) => {
  const h = await buildTestApp(t);
  const scorers = [`weave:///${PROJECT}/object/b:2`, `weave:///${PROJECT}/object/a:1`];
  const body = {
    name: 'E',
    description: 'd',
    dataset: `weave:///${PROJECT}/object/d:1`,
    scorers,
    trials: 2,
    evaluation_name: 'nightly',
    eval_attributes: { team: 'x', trials: 9 },
  };
  const created = await create(h, 'evaluations', body);
  const view = await ok(read(h, 'evaluations', 'e', created.digest));
  assert.deepEqual(view.scorers, scorers);
  assert.equal(view.trials, 2);
  assert.equal(view.evaluation_name, 'nightly');
  assert.equal(view.description, 'd');
  assert.equal((await objRead(h, 'e', created.digest)).val.team, 'x');
  assert.equal((await h.post(`${V2}/evaluations`, { ...body, trials: 0 })).statusCode, 400);
  assert.equal((await h.post(`${V2}/evaluations`, { ...body, trials: 'two' })).statusCode, 422);
});

test("v2 object routes refuse another entity's project (403)", async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post(`${V2}/ops`, { name: 'x', source_code: SOURCE }, h.bobKey);
  assert.equal(res.statusCode, 403, res.body);
  assert.equal((await h.get(`${V2}/ops`, h.bobKey)).statusCode, 403);
});
