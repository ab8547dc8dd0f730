import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';
import { createDigest, createObject, queryObjects, readObject } from '../helpers/objects.js';

// Objects docs/spec/objects.md §10, items 1–5 and 9–17: digests, versions, reads and deletes.

test('§10.1 /obj/create {"b":1,"a":"x"} answers the sorted-key digest', async (t) => {
  const h = await buildTestApp(t);
  const res = await createObject(h, 'o', '{"b":1,"a":"x"}');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body, { digest: 'OFgg8Alv1Vj0CRMZ5Yp0LOv4d9w7rKGAmBiJ8cQOyoQ', object_id: 'o' });
});

test('§10.2 the same value with other key order has the same digest', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(await createDigest(h, 'o', '{"a":"x","b":1}'), 'OFgg8Alv1Vj0CRMZ5Yp0LOv4d9w7rKGAmBiJ8cQOyoQ');
});

test('§10.3 1 and 1.0 hash differently, and 1.0 reads back as 1.0', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(await createDigest(h, 'int', '{"x":1}'), 'YTYlqmU0Pbsbmr5qusZ3P1yRvWDT8vX34urmnh24sic');
  assert.equal(await createDigest(h, 'float', '{"x":1.0}'), 'hXYo5CD9tT04YhwV9Lb3Yn20n4eGfwZO2DFpPCvifmA');
  const read = await readObject(h, 'float', 'latest');
  assert.match(read.raw, /"val":\{"x": 1\.0\}/);
});

test('§10.4 a bare string value', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(await createDigest(h, 's', '"hello"'), 'WqdirjgYu3J688ejbUlApbjECpiUUtIwT8lYYz81Tno');
  assert.equal((await readObject(h, 's', 'latest')).body.obj.val, 'hello');
});

test('§10.5 non-ASCII, floats and astral characters (E2)', async (t) => {
  const h = await buildTestApp(t);
  const digest = await createDigest(h, 'e2', '{"name":"café","score":1.0,"n":10,"items":[true,null,"😀"]}');
  assert.equal(digest, 'lzxTMXGcAgvtarnYYnDs3mhqpLRsSpZpKUwDCIAZOmY');
  assert.deepEqual((await readObject(h, 'e2', digest)).body.obj.val, {
    items: [true, null, '😀'],
    n: 10,
    name: 'café',
    score: 1,
  });
});

test('§10.9 a wrong expected_digest answers 409 and writes nothing', async (t) => {
  const h = await buildTestApp(t);
  const res = await createObject(h, 'o', '{"v":0}', { expected_digest: 'wrong' });
  assert.equal(res.statusCode, 409);
  assert.equal(res.body.error_type, 'DigestMismatchError');
  assert.match(res.body.reason as string, /^Client object digest wrong != server digest [A-Za-z0-9]{43}$/);
  const read = await readObject(h, 'o', 'latest');
  assert.equal(read.statusCode, 404);
  // the right expected digest is accepted
  const ok = await createObject(h, 'o', '{"v":0}', { expected_digest: (res.body.reason as string).split(' ').pop() });
  assert.equal(ok.statusCode, 200);
});

test('§10.10 two values make two versions; only the newer is latest', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  const objs = await queryObjects(h, { filter: { object_ids: ['o'] } });
  assert.deepEqual(
    objs.map((o) => [o.digest, o.version_index, o.is_latest]),
    [
      [d0, 0, 0],
      [d1, 1, 1],
    ],
  );
  assert.equal(objs[1]!.kind, 'object');
  assert.equal(objs[1]!.wb_user_id !== null, true);
  assert.match(objs[1]!.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
});

test('§10.11 re-creating identical content keeps the digest and the version count', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  const before = await readObject(h, 'o', d1);
  assert.equal(await createDigest(h, 'o', '{"v":1}'), d1);
  const objs = await queryObjects(h, { filter: { object_ids: ['o'] } });
  assert.equal(objs.length, 2);
  assert.equal(objs[1]!.created_at, before.body.obj.created_at);
});

test('re-publishing an older value makes it latest again (§2.5 newest)', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createDigest(h, 'o', '{"v":0}');
  await createDigest(h, 'o', '{"v":1}');
  assert.equal(await createDigest(h, 'o', '{"v":0}'), d0);
  const latest = await readObject(h, 'o', 'latest');
  assert.equal(latest.body.obj.digest, d0);
  assert.equal(latest.body.obj.version_index, 0);
  assert.equal((await queryObjects(h, { filter: { latest_only: true } })).length, 1);
});

test('§10.12 digest "v0" reads version 0, "latest" the latest version', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  const v0 = await readObject(h, 'o', 'v0');
  assert.equal(v0.statusCode, 200);
  assert.deepEqual(v0.body.obj.val, { v: 0 });
  assert.equal(v0.body.obj.is_latest, 0);
  const latest = await readObject(h, 'o', 'latest');
  assert.equal(latest.body.obj.digest, d1);
  assert.deepEqual(latest.body.obj.val, { v: 1 });
  assert.equal(latest.body.obj.tags, null);
  assert.equal(latest.body.obj.size_bytes, null);
});

test('§10.13 an unknown digest answers 404 "Obj o:nope not found"', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const res = await readObject(h, 'o', 'nope');
  assert.equal(res.statusCode, 404);
  assert.equal(res.body.reason, 'Obj o:nope not found');
});

test('§10.14 deleting the latest version moves latest back to v0', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  const del = await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [d1] });
  assert.equal(del.statusCode, 200);
  assert.deepEqual(del.json(), {
    num_deleted: 1,
    deleted_versions: [{ digest: d1, base_object_class: null, leaf_object_class: null }],
  });
  const latest = await readObject(h, 'o', 'latest');
  assert.equal(latest.body.obj.digest, d0);
  assert.equal(latest.body.obj.is_latest, 1);
  assert.deepEqual(
    (await queryObjects(h)).map((o) => o.digest),
    [d0],
  );
});

test('§10.15 reading a deleted digest answers 404 ObjectDeletedError with deleted_at', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [d1] });
  for (const ref of [d1, 'v1']) {
    const res = await readObject(h, 'o', ref);
    assert.equal(res.statusCode, 404);
    assert.equal(res.body.error_type, 'ObjectDeletedError');
    assert.match(res.body.deleted_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    assert.equal(res.body.reason, `o:v1 was deleted at ${res.body.deleted_at}`);
  }
});

test('§10.16 after a delete the next version index keeps counting', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [d1] });
  const d2 = await createDigest(h, 'o', '{"v":2}');
  const read = await readObject(h, 'o', d2);
  assert.equal(read.body.obj.version_index, 2);
  assert.equal(read.body.obj.is_latest, 1);
  // re-creating the deleted content makes it live again under a new index (our choice, §2.5)
  assert.equal(await createDigest(h, 'o', '{"v":1}'), d1);
  assert.equal((await readObject(h, 'o', d1)).body.obj.version_index, 3);
});

test('§10.17 deleting an object that never existed answers 404', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/obj/delete', { project_id: PROJECT, object_id: 'never', digests: null });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().reason, 'Object never (None) not found when deleting.');
});

test('/obj/delete is all or nothing, and digests null deletes every live version', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createDigest(h, 'o', '{"v":0}');
  await createDigest(h, 'o', '{"v":1}');
  const partial = await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [d0, 'v9'] });
  assert.equal(partial.statusCode, 404);
  assert.equal((await queryObjects(h)).length, 2);
  const tooMany = await h.post('/obj/delete', {
    project_id: PROJECT,
    object_id: 'o',
    digests: Array.from({ length: 101 }, (_, i) => `v${i}`),
  });
  assert.equal(tooMany.statusCode, 400);
  const all = await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [] });
  assert.equal(all.json().num_deleted, 2);
  assert.equal((await readObject(h, 'o', 'latest')).statusCode, 404);
});

test('/obj/create body errors: invalid JSON 422, empty 422, over the body limit 413', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_BODY_LIMIT_BYTES: '2048' });
  const send = (payload: string) =>
    h.app.inject({
      method: 'POST',
      url: '/obj/create',
      headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
      payload,
    });
  const invalid = await send('{"obj": {');
  assert.equal(invalid.statusCode, 422);
  assert.equal(invalid.json().detail[0].type, 'json_invalid');
  const empty = await send('');
  assert.equal(empty.statusCode, 422);
  assert.equal(empty.json().detail[0].type, 'missing');
  const wrongType = await send(`{"obj":{"project_id":"${PROJECT}","object_id":5,"val":1}}`);
  assert.equal(wrongType.statusCode, 422);
  assert.deepEqual(wrongType.json().detail[0].loc, ['body', 'obj', 'object_id']);
  const big = await send(`{"obj":{"project_id":"${PROJECT}","object_id":"x","val":"${'a'.repeat(3000)}"}}`);
  assert.equal(big.statusCode, 413);
  // other routes keep the native parser: a plain integer limit is accepted as a number
  assert.equal((await h.post('/objs/query', { project_id: PROJECT, limit: 1 })).statusCode, 200);
});
