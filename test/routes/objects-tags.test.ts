import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicAuth, buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { createDigest, queryObjects, readObject } from '../helpers/objects.js';

// Objects docs/spec/objects.md §10, items 25–32: tags and aliases.

function put(h: TestApp, url: string, body: unknown) {
  return h.app.inject({
    method: 'PUT',
    url,
    headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}
const addTags = (h: TestApp, id: string, digest: string, tags: string[]) =>
  put(h, `/objs/${id}/versions/${digest}/tags`, { project_id: PROJECT, tags });
const setAliases = (h: TestApp, id: string, digest: string, aliases: string[]) =>
  put(h, `/objs/${id}/aliases`, { project_id: PROJECT, digest, aliases });
const listOf = async (h: TestApp, what: 'tags' | 'aliases') =>
  (await h.get(`/${what}?project_id=${encodeURIComponent(PROJECT)}`)).json();

test('§10.25 tags are deduplicated and listed sorted', async (t) => {
  const h = await buildTestApp(t);
  const digest = await createDigest(h, 'o', '{"v":0}');
  const res = await addTags(h, 'o', digest, ['b', 'a', 'a']);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), {});
  const [obj] = await queryObjects(h, { include_tags_and_aliases: true });
  assert.ok(obj !== undefined);
  assert.deepEqual(obj.tags, ['a', 'b']);
});

test('§10.26 tag "my.tag" is rejected, "latest" accepted', async (t) => {
  const h = await buildTestApp(t);
  const digest = await createDigest(h, 'o', '{"v":0}');
  const bad = await addTags(h, 'o', digest, ['fine', 'my.tag']);
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().error_type, 'InvalidRequest');
  assert.deepEqual(await listOf(h, 'tags'), { tags: [] });
  for (const invalid of ['', '   ', ' x', 'x ', 'two  spaces', 'a+b', 'hello@world', 'x'.repeat(257)]) {
    assert.equal((await addTags(h, 'o', digest, [invalid])).statusCode, 400, JSON.stringify(invalid));
  }
  for (const valid of ['latest', 'v0', 'has spaces', 'my-tag', 'Tag_123', 'größe']) {
    assert.equal((await addTags(h, 'o', digest, [valid])).statusCode, 200, valid);
  }
});

test('§10.27 setting an alias on another version moves it', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  assert.equal((await setAliases(h, 'o', d0, ['prod'])).statusCode, 200);
  assert.equal((await readObject(h, 'o', 'prod')).body.obj.digest, d0);
  assert.equal((await setAliases(h, 'o', d1, ['prod'])).statusCode, 200);
  assert.equal((await readObject(h, 'o', 'prod')).body.obj.digest, d1);
  const v0 = (await readObject(h, 'o', d0, { include_tags_and_aliases: true })).body.obj;
  assert.deepEqual(v0.aliases, []);
  const v1 = (await readObject(h, 'o', d1, { include_tags_and_aliases: true })).body.obj;
  assert.deepEqual(v1.aliases, ['latest', 'prod']);
});

test('§10.28 aliases "latest", "v3" and "a/b" are rejected', async (t) => {
  const h = await buildTestApp(t);
  const digest = await createDigest(h, 'o', '{"v":0}');
  for (const alias of ['latest', 'v3', 'a/b', 'a:b', '', '   ', '\t', 'x'.repeat(129)]) {
    assert.equal((await setAliases(h, 'o', digest, [alias])).statusCode, 400, JSON.stringify(alias));
  }
  for (const alias of ['production', 'my-deploy.v2', 'has spaces', 'V1']) {
    assert.equal((await setAliases(h, 'o', digest, [alias])).statusCode, 200, alias);
  }
  const remove = await h.post('/objs/o/aliases/remove', { project_id: PROJECT, aliases: ['v1'] });
  assert.equal(remove.statusCode, 400);
});

test('§10.29 /aliases lists names without latest; /tags lists distinct sorted tags', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createDigest(h, 'o', '{"v":0}');
  const d1 = await createDigest(h, 'o', '{"v":1}');
  await setAliases(h, 'o', d0, ['prod']);
  await setAliases(h, 'o', d1, ['prod']);
  assert.deepEqual(await listOf(h, 'aliases'), { aliases: ['prod'] });
  await addTags(h, 'o', d0, ['zeta', 'alpha']);
  await addTags(h, 'o', d1, ['alpha', 'mid']);
  assert.deepEqual(await listOf(h, 'tags'), { tags: ['alpha', 'mid', 'zeta'] });
  // deleting a version drops its tags and aliases
  await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [d1] });
  assert.deepEqual(await listOf(h, 'tags'), { tags: ['alpha', 'zeta'] });
  assert.deepEqual(await listOf(h, 'aliases'), { aliases: [] });
  assert.equal((await readObject(h, 'o', 'prod')).statusCode, 404);
});

test('§10.30 adding tags to an unknown digest is 404; removing from it is a no-op', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const unknown = 'A'.repeat(43);
  const res = await addTags(h, 'o', unknown, ['x']);
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().reason, `Object version o:${unknown} not found`);
  assert.equal((await addTags(h, 'o', 'latest', ['x'])).statusCode, 404);
  const remove = await h.post(`/objs/o/versions/${unknown}/tags/remove`, { project_id: PROJECT, tags: ['x'] });
  assert.equal(remove.statusCode, 200);
  assert.deepEqual(remove.json(), {});
});

test('§10.31 tags and aliases are null unless requested; a fresh version shows [] and ["latest"]', async (t) => {
  const h = await buildTestApp(t);
  await createDigest(h, 'o', '{"v":0}');
  const [plain] = await queryObjects(h);
  assert.ok(plain !== undefined);
  assert.equal(plain.tags, null);
  assert.equal(plain.aliases, null);
  const [rich] = await queryObjects(h, { include_tags_and_aliases: true });
  assert.ok(rich !== undefined);
  assert.deepEqual(rich.tags, []);
  assert.deepEqual(rich.aliases, ['latest']);
});

test('§10.32 filter.tags matches any tag; tags and aliases together must both hold', async (t) => {
  const h = await buildTestApp(t);
  const x = await createDigest(h, 'x', '{"x":1}');
  const y = await createDigest(h, 'y', '{"y":1}');
  await createDigest(h, 'z', '{"z":1}');
  await addTags(h, 'x', x, ['alpha']);
  await addTags(h, 'y', y, ['beta']);
  await setAliases(h, 'y', y, ['prod']);
  const ids = async (filter: Record<string, unknown>) =>
    (await queryObjects(h, { filter })).map((o) => o.object_id).sort();
  assert.deepEqual(await ids({ tags: ['alpha', 'beta'] }), ['x', 'y']);
  assert.deepEqual(await ids({ tags: ['alpha'], aliases: ['prod'] }), []);
  assert.deepEqual(await ids({ tags: ['beta'], aliases: ['prod'] }), ['y']);
  assert.deepEqual(await ids({ aliases: ['latest'] }), ['x', 'y', 'z']);
  assert.deepEqual(await ids({ tags: [] }), ['x', 'y', 'z']);
  // remove tags and aliases
  await h.post(`/objs/y/versions/${y}/tags/remove`, { project_id: PROJECT, tags: ['beta', 'never'] });
  await h.post('/objs/y/aliases/remove', { project_id: PROJECT, aliases: ['prod', 'never'] });
  assert.deepEqual(await ids({ tags: ['beta'] }), []);
  assert.deepEqual(await ids({ aliases: ['prod'] }), []);
});
