import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { createDigest, createObject, queryObjects, readObject } from '../helpers/objects.js';

// Objects docs/spec/objects.md §10, items 18–24, plus class detection, builtin classes and tenancy.

const MODEL_VAL =
  '{"_type":"MyModel","name":"m1","temperature":0.5,"_class_name":"MyModel","_bases":["Model","Object","BaseModel"]}';
const OP_VAL =
  '{"_type":"CustomWeaveType","weave_type":{"type":"Op"},"files":{"obj.py":"uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek"}}';

test('§10.18 a Model value gets base Model and leaf MyModel; class filters use them', async (t) => {
  const h = await buildTestApp(t);
  const digest = await createDigest(h, 'm', MODEL_VAL);
  assert.equal(digest, 'kVfIWpLOnkzXv2BqYEUPYUoQQdK9yAL6iShQDOK0nBg');
  await createDigest(h, 'plain', '{"a":1}');
  const obj = (await readObject(h, 'm', digest)).body.obj;
  assert.equal(obj.base_object_class, 'Model');
  assert.equal(obj.leaf_object_class, 'MyModel');
  assert.deepEqual(
    (await queryObjects(h, { filter: { base_object_classes: ['Model'] } })).map((o) => o.object_id),
    ['m'],
  );
  assert.deepEqual(await queryObjects(h, { filter: { leaf_object_classes: ['Model'] } }), []);
  assert.deepEqual(
    (await queryObjects(h, { filter: { leaf_object_classes: ['MyModel'] } })).map((o) => o.object_id),
    ['m'],
  );
  // our choice: versions without a base class survive exclude_base_object_classes
  assert.deepEqual(
    (await queryObjects(h, { filter: { exclude_base_object_classes: ['Model'] } })).map((o) => o.object_id),
    ['plain'],
  );
});

test('§2.2 class detection table', async (t) => {
  const h = await buildTestApp(t);
  const cases: Array<[string, string, string | null, string | null]> = [
    ['Dataset', '["Object","BaseModel"]', 'Dataset', 'Dataset'],
    ['StringPrompt', '["Prompt","Object","BaseModel"]', 'Prompt', 'StringPrompt'],
    ['B', '["MyModel","Model","Object","BaseModel"]', 'Model', 'B'],
    ['X', '["Foo","BaseModel"]', null, null],
  ];
  for (const [name, bases, base, leaf] of cases) {
    const digest = await createDigest(h, `c-${name}`, `{"_class_name":"${name}","_bases":${bases}}`);
    const obj = (await readObject(h, `c-${name}`, digest)).body.obj;
    assert.deepEqual([obj.base_object_class, obj.leaf_object_class], [base, leaf], name);
  }
});

test('§10.19 builtin_object_class on a non-object value answers 400', async (t) => {
  const h = await buildTestApp(t);
  const res = await createObject(h, 'x', '"x"', { builtin_object_class: 'AnnotationSpec' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.body.reason, 'object_class cannot be provided for non-dict objects');
});

test('§2.4 builtin AnnotationSpec is filled in and hashed as the reference does', async (t) => {
  const h = await buildTestApp(t);
  const res = await createObject(h, 'spec', '{"field_schema":{"type":"number","minimum":0,"maximum":5}}', {
    builtin_object_class: 'AnnotationSpec',
  });
  assert.equal(res.statusCode, 200, JSON.stringify(res.body));
  assert.equal(res.body.digest, 'CS2vOwCnCX1pZ0UxWw7MpVHdOn90XrhWkyAXL0TFa6Q');
  const obj = (await readObject(h, 'spec', 'latest')).body.obj;
  assert.equal(obj.base_object_class, 'AnnotationSpec');
  assert.equal(obj.leaf_object_class, 'AnnotationSpec');
  assert.equal(obj.val.unique_among_creators, false);
  assert.deepEqual(obj.val._bases, ['BaseObject', 'BaseModel']);
  assert.equal(
    (await createObject(h, 'u', '{}', { builtin_object_class: 'NoSuchClass' })).body.reason,
    'Unknown object class: NoSuchClass',
  );
  const mismatch = await createObject(h, 'mm', MODEL_VAL, { builtin_object_class: 'AnnotationSpec' });
  assert.equal(mismatch.statusCode, 400);
  const badSchema = await createObject(h, 'bad', '{"field_schema":{"type":"nonsense"}}', {
    builtin_object_class: 'AnnotationSpec',
  });
  assert.equal(badSchema.statusCode, 400);
  const model = await createObject(h, 'llm', '{"llm_model_id":"gpt"}', {
    set_base_object_class: 'LLMStructuredCompletionModel',
  });
  assert.equal(model.statusCode, 200);
  const llm = (await readObject(h, 'llm', 'latest')).body.obj;
  assert.deepEqual([llm.base_object_class, llm.leaf_object_class], ['Model', 'LLMStructuredCompletionModel']);
});

test('§10.20 object_id rules: bad characters 422, 129 characters 400, ok.name-1_x 200', async (t) => {
  const h = await buildTestApp(t);
  const bad = await createObject(h, 'bad name', '{}');
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.body.error_type, 'InvalidFieldError');
  assert.match(bad.body.reason as string, /" "/);
  assert.equal((await createObject(h, '', '{}')).statusCode, 422);
  assert.equal((await createObject(h, 'a'.repeat(129), '{}')).statusCode, 400);
  assert.equal((await createObject(h, 'a'.repeat(128), '{}')).statusCode, 200);
  assert.equal((await createObject(h, 'ok.name-1_x', '{}')).statusCode, 200);
  assert.equal((await createObject(h, 'größe_数据', '{}')).statusCode, 200);
});

test('§10.21 an op value has kind "op"; is_op filters', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(await createDigest(h, 'my_op', OP_VAL), '7KzzLR3hrHPnusB5QOoLEg5x3ulnWFTPmTHJXahsIS8');
  await createDigest(h, 'thing', '{"_type":"Op"}');
  await createDigest(h, 'data', '{"_type":"CustomWeaveType","weave_type":{"type":"Other"}}');
  assert.equal((await readObject(h, 'my_op', 'latest')).body.obj.kind, 'op');
  const ops = await queryObjects(h, { filter: { is_op: true } });
  assert.deepEqual(ops.map((o) => o.object_id).sort(), ['my_op', 'thing']);
  assert.ok(ops.every((o) => o.kind === 'op'));
  assert.deepEqual(
    (await queryObjects(h, { filter: { is_op: false } })).map((o) => o.object_id),
    ['data'],
  );
});

test('§10.22 metadata_only empties val; include_storage_size gives the canonical byte length', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'e1', '{"b":1,"a":"x"}');
  await createDigest(h, 'e2', '{"name":"café"}');
  const meta = await queryObjects(h, { metadata_only: true });
  assert.equal(meta.length, 2);
  assert.ok(meta.every((o) => JSON.stringify(o.val) === '{}'));
  assert.ok(meta.every((o) => o.size_bytes === null));
  const sized = await queryObjects(h, { include_storage_size: true });
  assert.equal(sized[0]!.size_bytes, 18);
  assert.equal(sized[1]!.size_bytes, Buffer.byteLength('{"name": "caf\\u00e9"}'));
  const read = await readObject(h, 'e1', 'latest', { metadata_only: true });
  assert.deepEqual(read.body.obj.val, {});
});

test('§10.23 /obj/read with an unknown key answers 422 extra_forbidden', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/obj/read', { project_id: PROJECT, object_id: 'o', digest: 'latest', foo: 1 });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().detail[0].type, 'extra_forbidden');
  assert.deepEqual(res.json().detail[0].loc, ['body', 'foo']);
  // the inner obj of /obj/create ignores unknown keys, the wrapper does not
  assert.equal((await createObject(h, 'o', '{}', { unknown_field: 1 })).statusCode, 200);
  const wrapper = await h.post('/obj/create', { obj: { project_id: PROJECT, object_id: 'o', val: {} }, extra: 1 });
  assert.equal(wrapper.statusCode, 422);
  assert.equal(wrapper.json().detail[0].type, 'extra_forbidden');
});

test('§10.24 sort by created_at desc with limit and offset pages from the newest', async (t) => {
  const h = await buildTestApp(t);
  for (let i = 0; i < 3; i += 1) {
    await createDigest(h, `o${i}`, `{"i":${i}}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const sort_by = [{ field: 'created_at', direction: 'desc' }];
  assert.deepEqual(
    (await queryObjects(h, { sort_by, limit: 1 })).map((o) => o.object_id),
    ['o2'],
  );
  assert.deepEqual(
    (await queryObjects(h, { sort_by, limit: 1, offset: 1 })).map((o) => o.object_id),
    ['o1'],
  );
  assert.deepEqual(
    (await queryObjects(h, { sort_by: [{ field: 'object_id', direction: 'desc' }] })).map((o) => o.object_id),
    ['o2', 'o1', 'o0'],
  );
  assert.deepEqual(await queryObjects(h, { limit: 0 }), []);
  assert.equal((await h.post('/objs/query', { project_id: PROJECT, limit: -1 })).statusCode, 400);
  assert.equal(
    (await h.post('/objs/query', { project_id: PROJECT, sort_by: [{ field: 'created_at', direction: 'ASC' }] }))
      .statusCode,
    422,
  );
  // unknown sort fields are ignored: default order
  assert.deepEqual(
    (await queryObjects(h, { sort_by: [{ field: 'val.i', direction: 'desc' }] })).map((o) => o.object_id),
    ['o0', 'o1', 'o2'],
  );
});

test('§2.5 an object id bound to one base class rejects another (ObjectNameTypeCollision)', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'thing', '{"plain":true}');
  const res = await createObject(h, 'thing', MODEL_VAL);
  assert.equal(res.statusCode, 400);
  assert.equal(res.body.error_type, 'ObjectNameTypeCollision');
  assert.equal(res.body.new_base_object_class, 'Model');
  assert.deepEqual(res.body.existing_base_object_classes, [null]);
  // ops and non-ops may share a name
  assert.equal((await createObject(h, 'thing', OP_VAL)).statusCode, 200);
});

test('refs in values: malformed weave:/// and internal refs answer 400; well-formed refs are kept', async (t) => {
  const h = await buildTestApp(t);
  const malformed = await createObject(h, 'r', '{"a":["weave:///acme"]}');
  assert.equal(malformed.statusCode, 400);
  assert.equal(malformed.body.reason, 'Invalid URI: weave:///acme');
  const internal = await createObject(h, 'r', '{"a":"weave-trace-internal:///abc/object/x:y"}');
  assert.equal(internal.statusCode, 400);
  assert.equal(internal.body.reason, 'Encountered unexpected internal ref format.');
  const ok = await createObject(h, 'r', '{"a":"weave:///acme/demo/object/x:abc"}');
  assert.equal(ok.statusCode, 200);
});

test('big integers keep every digit; duplicate keys keep the last value', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(
    await createDigest(h, 'big', '{"big": 12345678901234567890}'),
    'GbRsLDYZiVS5AmYZwJjl1sguqJYEmSeYXN5PtvCLzig',
  );
  assert.match((await readObject(h, 'big', 'latest')).raw, /"val":\{"big": 12345678901234567890\}/);
  assert.equal(await createDigest(h, 'dup', '{"b":0,"a":"x","b":1}'), 'OFgg8Alv1Vj0CRMZ5Yp0LOv4d9w7rKGAmBiJ8cQOyoQ');
});

test('tenancy: bob gets 403 on every objects endpoint of acme/demo', async (t) => {
  const h = await buildTestApp(t);
  const digest = await createDigest(h, 'o', '{"v":0}');
  assert.equal((await createObject(h, 'o', '{"v":1}', {}, h.bobKey)).statusCode, 403);
  const bob = (url: string, body: unknown) => h.post(url, body, h.bobKey);
  assert.equal((await bob('/obj/read', { project_id: PROJECT, object_id: 'o', digest })).statusCode, 403);
  assert.equal((await bob('/objs/query', { project_id: PROJECT })).statusCode, 403);
  assert.equal((await bob('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: null })).statusCode, 403);
  assert.equal((await h.get(`/tags?project_id=${encodeURIComponent(PROJECT)}`, h.bobKey)).statusCode, 403);
  assert.equal(
    (
      await h.app.inject({
        method: 'PUT',
        url: `/objs/o/versions/${digest}/tags`,
        headers: {
          authorization: `Basic ${Buffer.from(`api:${h.bobKey}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        payload: JSON.stringify({ project_id: PROJECT, tags: ['x'] }),
      })
    ).statusCode,
    403,
  );
  // nothing changed for alice, and bob's own project is separate
  assert.equal((await readObject(h, 'o', 'latest')).body.obj.digest, digest);
  assert.deepEqual((await (await bob('/objs/query', { project_id: 'other/p' })).json()).objs, []);
  assert.equal((await createObject(h, 'o', '{}', {}, null)).statusCode, 401);
});
