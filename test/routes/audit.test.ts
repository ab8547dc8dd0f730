import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';

/**
 * The audit log and members' roles over HTTP (routes/audit.ts; docs/roles-and-audit.md). alice
 * administers acme, bob administers other (test/helpers/app.ts).
 */

interface Entry {
  id: string;
  at: string;
  username: string | null;
  key_id: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

async function audit(
  h: TestApp,
  query: string,
  key?: string,
): Promise<{ entries: Entry[]; next_before: string | null }> {
  const res = await h.get(`/audit?${query}`, key);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

test('keys, roles, prices and deletions are recorded with who did them, newest first', async (t) => {
  const h = await buildTestApp(t);
  const created = (await h.post('/keys/create', { entity: 'acme', username: 'carol', role: 'viewer' })).json();
  assert.equal(created.role, 'viewer');
  assert.equal((await h.post('/keys/revoke', { entity: 'acme', id: created.id })).statusCode, 200);
  const costs = { 'my-llm': { prompt_token_cost: 0.001, completion_token_cost: 0.002 } };
  assert.equal((await h.post('/cost/create', { project_id: PROJECT, costs })).statusCode, 200);
  const start = { project_id: PROJECT, id: 'c1', trace_id: 't1', op_name: 'op', started_at: '2025-01-01T00:00:00Z' };
  assert.equal((await h.post('/call/start', { start: { ...start, attributes: {}, inputs: {} } })).statusCode, 200);
  const deleted = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['c1'] });
  assert.equal(deleted.statusCode, 200, deleted.body);
  const purge = { project_id: PROJECT, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'f1' }] } } };
  assert.equal((await h.post('/feedback/purge', purge)).statusCode, 200);
  assert.equal(
    (await h.app.inject({ method: 'DELETE', url: `/projects/${PROJECT}`, headers: auth(h) })).statusCode,
    200,
  );

  const { entries, next_before } = await audit(h, 'entity=acme');
  assert.equal(next_before, null);
  assert.deepEqual(
    entries.map((e) => e.action),
    [
      'project.deleted',
      'feedback.purged',
      'calls.deleted',
      'prices.created',
      'key.revoked',
      'role.changed',
      'key.created',
    ],
  );
  const aliceKeyId = (await h.store.auth.findKeyByHash(hashOf(h.aliceKey)))!.id;
  for (const e of entries) {
    assert.equal(e.username, 'alice');
    assert.equal(e.key_id, aliceKeyId);
    assert.ok(!Number.isNaN(Date.parse(e.at)));
  }
  const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
  assert.equal(byAction['key.created']!.target, created.id);
  assert.deepEqual(byAction['role.changed']!.details, { from: 'member', to: 'viewer' });
  assert.equal(byAction['role.changed']!.target, 'carol');
  assert.equal(byAction['key.revoked']!.target, created.id);
  assert.deepEqual(byAction['prices.created']!.details.costs, costs);
  assert.deepEqual(byAction['calls.deleted']!.details, { call_ids: ['c1'], num_deleted: 1 });
  assert.deepEqual(byAction['feedback.purged']!.details, { ids: ['f1'] });
  assert.equal(byAction['project.deleted']!.target, PROJECT);
  assert.ok((byAction['project.deleted']!.details.deleted_rows as number) >= 1);
  // the project deletion did not take its own record, nor the entity's earlier ones
  assert.equal((await audit(h, 'entity=acme&action=calls.deleted')).entries.length, 1);
  // other entities' logs hold none of it
  assert.deepEqual((await audit(h, 'entity=other', h.bobKey)).entries, []);
});

test('the log pages with limit and before', async (t) => {
  const h = await buildTestApp(t);
  for (const username of ['u1', 'u2', 'u3']) await h.post('/keys/create', { entity: 'acme', username });
  const first = await audit(h, 'entity=acme&limit=2');
  assert.equal(first.entries.length, 2);
  assert.equal(first.next_before, first.entries[1]!.id);
  const rest = await audit(h, `entity=acme&limit=2&before=${first.next_before}`);
  assert.equal(rest.entries.length, 1);
  assert.equal(rest.next_before, null);
  assert.deepEqual(
    [...first.entries, ...rest.entries].map((e) => e.details.username),
    ['u3', 'u2', 'u1'],
  );
});

test('only admins of the entity (and instance admins) read its log; bad queries are 4xx', async (t) => {
  const h = await buildTestApp(t);
  const member = (await h.post('/keys/create', { entity: 'acme', username: 'max' })).json().key as string;
  const asMember = await h.get('/audit?entity=acme', member);
  assert.equal(asMember.statusCode, 403);
  assert.match(asMember.json().reason, /admin/);
  const asBob = await h.get('/audit?entity=acme', h.bobKey);
  assert.equal(asBob.statusCode, 403);
  assert.match(asBob.json().reason, /Only an admin of entity acme/);
  for (const query of ['', 'entity=acme&limit=x', 'entity=acme&action=nope', 'entity=a/b', 'entity=acme&extra=1'])
    assert.equal((await h.get(`/audit?${query}`)).statusCode, 422, query);
  for (const query of ['entity=acme&limit=0', 'entity=acme&limit=5000']) {
    const res = await h.get(`/audit?${query}`);
    assert.equal(res.statusCode, 400, query);
    assert.match(res.json().reason, /limit must be 1 to 1000/);
  }
});

test('memberships: an entity admin lists members and changes a role; the change holds at once', async (t) => {
  const h = await buildTestApp(t);
  const carol = (await h.post('/keys/create', { entity: 'acme', username: 'carol' })).json().key as string;
  const write = () => h.post('/call/start', { start: startOf('c9') }, carol);
  assert.equal((await write()).statusCode, 200);
  const changed = await h.post('/memberships/update', { entity: 'acme', username: 'carol', role: 'viewer' });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.deepEqual(changed.json(), { entity: 'acme', username: 'carol', role: 'viewer', previous_role: 'member' });
  const refused = await write();
  assert.equal(refused.statusCode, 403);
  assert.match(refused.json().reason, /viewer/);
  assert.equal((await h.post('/calls/query_stats', { project_id: PROJECT }, carol)).statusCode, 200);
  const members = await h.post('/memberships/query', { entity: 'acme' });
  assert.deepEqual(members.json(), {
    members: [
      { username: 'alice', role: 'admin' },
      { username: 'carol', role: 'viewer' },
    ],
  });
  // the last admin cannot be demoted; a stranger is 404; another entity's admin is 403
  const last = await h.post('/memberships/update', { entity: 'acme', username: 'alice', role: 'member' });
  assert.equal(last.statusCode, 409, last.body);
  const stranger = await h.post('/memberships/update', { entity: 'acme', username: 'bob', role: 'member' });
  assert.equal(stranger.statusCode, 404);
  const asBob = await h.post('/memberships/update', { entity: 'acme', username: 'carol', role: 'admin' }, h.bobKey);
  assert.equal(asBob.statusCode, 403);
  const bad = await h.post('/memberships/update', { entity: 'acme', username: 'carol', role: 'owner' });
  assert.equal(bad.statusCode, 422);
  // carol, promoted to admin, can demote alice and read the log
  await h.post('/memberships/update', { entity: 'acme', username: 'carol', role: 'admin' });
  const demoted = await h.post('/memberships/update', { entity: 'acme', username: 'alice', role: 'viewer' }, carol);
  assert.equal(demoted.statusCode, 200, demoted.body);
  assert.equal((await h.get('/audit?entity=acme')).statusCode, 403, 'a demoted admin loses the log at once');
  const log = await audit(h, 'entity=acme&action=role.changed', carol);
  assert.deepEqual(
    log.entries.map((e) => [e.username, e.target, e.details.to]),
    [
      ['carol', 'alice', 'viewer'],
      ['alice', 'carol', 'admin'],
      ['alice', 'carol', 'viewer'],
    ],
  );
});

test('keys/create: entity_admin and a contradicting role is a 400; a viewer key cannot write', async (t) => {
  const h = await buildTestApp(t);
  const bad = await h.post('/keys/create', { entity: 'acme', username: 'v', entity_admin: true, role: 'viewer' });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.equal(await h.store.auth.findUser('v'), null, 'nothing was created');
  const viewer = (await h.post('/keys/create', { entity: 'acme', username: 'v', role: 'viewer' })).json();
  assert.equal(viewer.role, 'viewer');
  assert.equal(viewer.entity_admin, false);
  const refused = await h.post('/call/start', { start: startOf('c1') }, viewer.key);
  assert.equal(refused.statusCode, 403);
  // a new key for the same user with no role keeps the role
  const again = (await h.post('/keys/create', { entity: 'acme', username: 'v' })).json();
  assert.equal(again.role, 'viewer');
});

function startOf(id: string): Record<string, unknown> {
  return {
    project_id: PROJECT,
    id,
    trace_id: `t-${id}`,
    op_name: 'op',
    started_at: '2025-01-01T00:00:00Z',
    attributes: {},
    inputs: {},
  };
}

function auth(h: TestApp): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`api:${h.aliceKey}`).toString('base64')}` };
}

function hashOf(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
