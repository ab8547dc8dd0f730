import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';

/** API key management over HTTP (routes/keys.ts). alice administers acme, bob administers other. */

async function withAdmin(t: Parameters<typeof buildTestApp>[0]): Promise<{ h: TestApp; adminKey: string }> {
  const adminKey = randomBytes(20).toString('hex');
  const h = await buildTestApp(t, { HEDDLE_ADMIN_KEY: adminKey });
  await h.app.services.auth.bootstrapAdmin(adminKey, 'admin');
  return { h, adminKey };
}

const reach = async (h: TestApp, key: string, project = PROJECT): Promise<number> =>
  (await h.post('/calls/query_stats', { project_id: project }, key)).statusCode;

test('an entity admin creates a key for a new member; the key reaches that entity only', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/keys/create', { entity: 'acme', username: 'carol' });
  assert.equal(res.statusCode, 200, res.body);
  const created = res.json();
  assert.match(created.key, /^[0-9a-f]{40}$/);
  assert.equal(created.prefix, created.key.slice(0, 6));
  assert.deepEqual(
    { ...created, id: undefined, key: undefined, prefix: undefined },
    {
      id: undefined,
      key: undefined,
      prefix: undefined,
      username: 'carol',
      entity: 'acme',
      entity_admin: false,
      role: 'member',
      admin: false,
    },
  );
  assert.equal(await reach(h, created.key), 200);
  assert.equal(await reach(h, created.key, 'other/x'), 403);
  // carol is a plain member: she may not manage keys
  for (const [url, body] of [
    ['/keys/create', { entity: 'acme', username: 'dave' }],
    ['/keys/query', { entity: 'acme' }],
    ['/keys/query', {}],
    ['/keys/revoke', { entity: 'acme', id: created.id }],
  ] as const) {
    const refused = await h.post(url, body, created.key);
    assert.ok(
      refused.statusCode === 403 || (url === '/keys/query' && refused.json().keys?.length === 0),
      `${url} ${refused.body}`,
    );
  }
});

test('listing shows id, prefix, user, created and revoked, never the secret; revoke takes effect at once', async (t) => {
  const h = await buildTestApp(t);
  const carol = (await h.post('/keys/create', { entity: 'acme', username: 'carol' })).json();
  const list = await h.post('/keys/query', { entity: 'acme' });
  assert.equal(list.statusCode, 200);
  const keys = list.json().keys as Array<Record<string, unknown>>;
  assert.deepEqual(keys.map((k) => k.username).sort(), ['alice', 'carol']);
  for (const k of keys) {
    assert.deepEqual(Object.keys(k).sort(), ['admin', 'created_at', 'id', 'prefix', 'revoked_at', 'username']);
    assert.match(String(k.created_at), /Z$/);
  }
  assert.ok(!list.body.includes(carol.key), 'the secret is never listed');
  assert.ok(!keys.some((k) => k.username === 'bob'), 'keys of another entity are not listed');

  const revoked = await h.post('/keys/revoke', { entity: 'acme', id: carol.id });
  assert.equal(revoked.statusCode, 200, revoked.body);
  assert.match(revoked.json().revoked_at, /Z$/);
  assert.equal(await reach(h, carol.key), 401);
  const again = (await h.post('/keys/query', {})).json().keys as Array<Record<string, unknown>>;
  assert.notEqual(again.find((k) => k.id === carol.id)?.revoked_at, null);
  // revoking twice is idempotent
  assert.equal((await h.post('/keys/revoke', { entity: 'acme', id: carol.id })).statusCode, 200);
});

test('an entity admin never manages keys that reach past its entities', async (t) => {
  const { h, adminKey } = await withAdmin(t);
  // bob belongs to other: alice can neither mint a key for him in acme nor revoke his key
  assert.equal((await h.post('/keys/create', { entity: 'acme', username: 'bob' })).statusCode, 403);
  assert.equal((await h.post('/keys/create', { entity: 'other', username: 'eve' })).statusCode, 403);
  const bobKeys = (await h.post('/keys/query', { entity: 'other' }, h.bobKey)).json().keys as Array<{ id: string }>;
  assert.equal((await h.post('/keys/revoke', { entity: 'other', id: bobKeys[0]!.id })).statusCode, 403);
  assert.equal((await h.post('/keys/revoke', { entity: 'acme', id: bobKeys[0]!.id })).statusCode, 404);
  assert.equal((await h.post('/keys/query', { entity: 'other' })).statusCode, 403);
  assert.equal(await reach(h, h.bobKey, 'other/x'), 200);
  // a user in both entities is out of reach for an admin of only one of them
  const both = (await h.post('/keys/create', { entity: 'acme', username: 'frank' }, adminKey)).json();
  assert.equal((await h.post('/keys/create', { entity: 'other', username: 'frank' }, adminKey)).statusCode, 200);
  const res = await h.post('/keys/revoke', { entity: 'acme', id: both.id });
  assert.equal(res.statusCode, 403);
  assert.match(res.json().reason, /entities you do not administer/);
  assert.equal(await reach(h, both.key), 200);
  // instance admin keys: only the instance admin creates or revokes them
  assert.equal((await h.post('/keys/create', { entity: 'acme', username: 'gina', admin: true })).statusCode, 403);
  const adminKeys = (await h.post('/keys/query', {}, adminKey)).json().keys as Array<{ id: string; admin: boolean }>;
  const adminId = adminKeys.find((k) => k.admin)!.id;
  assert.equal((await h.post('/keys/revoke', { entity: 'admin', id: adminId })).statusCode, 403);
  assert.equal(await reach(h, adminKey), 200);
});

test('the instance admin manages every entity, makes entity admins and admin keys', async (t) => {
  const { h, adminKey } = await withAdmin(t);
  const all = (await h.post('/keys/query', {}, adminKey)).json().keys as Array<{ username: string }>;
  assert.deepEqual(all.map((k) => k.username).sort(), ['admin', 'alice', 'bob']);
  const lead = await h.post('/keys/create', { entity: 'newco', username: 'lead', entity_admin: true }, adminKey);
  assert.equal(lead.statusCode, 200, lead.body);
  assert.equal(lead.json().entity_admin, true);
  const member = await h.post('/keys/create', { entity: 'newco', username: 'dev' }, lead.json().key);
  assert.equal(member.statusCode, 200, member.body);
  assert.equal(await reach(h, member.json().key, 'newco/p'), 200);
  assert.equal((await h.post('/keys/create', { entity: 'acme', username: 'x' }, lead.json().key)).statusCode, 403);
  const second = await h.post('/keys/create', { entity: 'admin', username: 'ops', admin: true }, adminKey);
  assert.equal(second.json().admin, true);
  assert.equal(await reach(h, second.json().key, 'other/x'), 200);
  const revoked = await h.post('/keys/revoke', { entity: 'newco', id: lead.json().id }, adminKey);
  assert.equal(revoked.statusCode, 200);
  assert.equal(await reach(h, lead.json().key, 'newco/p'), 401);
});

test('bad bodies are 422 and unknown ids 404', async (t) => {
  const h = await buildTestApp(t);
  for (const body of [
    {},
    { entity: 'a/b' },
    { entity: '' },
    { entity: 'acme', extra: 1 },
    { entity: 'acme', username: 'x/y' },
  ]) {
    const res = await h.post('/keys/create', body);
    assert.equal(res.statusCode, 422, JSON.stringify(body));
    assert.ok(Array.isArray(res.json().detail));
  }
  assert.equal((await h.post('/keys/revoke', { entity: 'acme' })).statusCode, 422);
  assert.equal((await h.post('/keys/revoke', { entity: 'acme', id: 'key_nope' })).statusCode, 404);
  assert.equal((await h.post('/keys/query', {}, null)).statusCode, 401);
  // served under /traces like everything else
  assert.equal((await h.post('/traces/keys/query', { entity: 'acme' })).statusCode, 200);
});

test("a new entity's first key manages it; the keys after it are members", async (t) => {
  const { h, adminKey } = await withAdmin(t);
  const first = await h.post('/keys/create', { entity: 'startup', username: 'founder' }, adminKey);
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual([first.json().role, first.json().entity_admin], ['admin', true]);
  // the founder's key manages its entity without the instance admin
  const hire = await h.post('/keys/create', { entity: 'startup', username: 'hire' }, first.json().key);
  assert.equal(hire.statusCode, 200, hire.body);
  assert.deepEqual([hire.json().role, hire.json().entity_admin], ['member', false]);
  const listed = await h.post('/keys/query', { entity: 'startup' }, first.json().key);
  assert.equal(listed.statusCode, 200);
  assert.equal((listed.json().keys as unknown[]).length, 2);
  // a role asked for wins, even for the first key
  const viewer = await h.post('/keys/create', { entity: 'quiet', username: 'reader', role: 'viewer' }, adminKey);
  assert.equal(viewer.json().role, 'viewer');
});
