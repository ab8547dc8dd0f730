import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** `GET /projects/{entity}/{project}/usage` and `DELETE /projects/{entity}/{project}` (docs/export.md). */

async function del(h: TestApp, projectPath: string, key?: string) {
  const headers = { authorization: `Basic ${Buffer.from(`api:${key ?? h.aliceKey}`).toString('base64')}` };
  return h.app.inject({ method: 'DELETE', url: `/projects/${projectPath}`, headers });
}

async function seed(h: TestApp, projectId: string, key?: string): Promise<void> {
  const ok = async (url: string, body: unknown) => {
    const res = await h.post(url, body, key);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  };
  for (const id of ['c1', 'c2']) {
    await ok('/call/start', makeStart({ id, project_id: projectId }));
    await ok('/call/end', makeEnd(id, { project_id: projectId }));
  }
  await ok('/obj/create', { obj: { project_id: projectId, object_id: 'thing', val: { a: 1 } } });
  await ok('/table/create', { table: { project_id: projectId, rows: [{ x: 1 }, { x: 2 }] } });
  await ok('/feedback/create', {
    project_id: projectId,
    weave_ref: `weave:///${projectId}/call/c1`,
    feedback_type: 'note',
    payload: { note: 'n' },
  });
  await ok('/cost/create', { project_id: projectId, costs: { m: { prompt_token_cost: 1, completion_token_cost: 1 } } });
}

test('an entity admin deletes a project: every row goes, other projects stay', async (t) => {
  const h = await buildTestApp(t);
  await seed(h, PROJECT);
  await seed(h, 'acme/keep');
  await seed(h, 'other/x', h.bobKey);
  // the background call indexer writes derived rows (call_text_marks, …) of any project at any
  // time: stopped, the counts below change only by the deletion (it once raced them on PostgreSQL)
  await h.app.services.callTextIndexer.stop();
  const usage = await h.get('/projects/acme/demo/usage');
  assert.equal(usage.statusCode, 200, usage.body);
  const before = usage.json();
  assert.equal(before.rows.calls, 2);
  assert.ok(before.rows.object_versions >= 1 && before.rows.table_rows === 2 && before.rows.feedback === 1);
  const keep = (await h.get('/projects/acme/keep/usage')).json();
  const other = (await h.get('/projects/other/x/usage', h.bobKey)).json();

  const res = await del(h, 'acme/demo');
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.project_id, PROJECT);
  assert.equal(body.deleted_rows, before.total_rows);
  assert.equal(body.remaining_rows, 0);
  assert.equal(body.deleted.projects, 1);
  assert.equal((await h.get('/projects/acme/demo/usage')).json().total_rows, 0);
  assert.deepEqual((await h.get('/projects/acme/keep/usage')).json(), keep);
  assert.deepEqual((await h.get('/projects/other/x/usage', h.bobKey)).json(), other);
  const calls = await h.post('/calls/stream_query', { project_id: PROJECT });
  assert.equal(calls.body, '');
  // gone: a second deletion is a 404; the project can be written to again and is recorded again
  assert.equal((await del(h, 'acme/demo')).statusCode, 404);
  await seed(h, PROJECT);
  assert.equal((await h.get('/projects/acme/demo/usage')).json().rows.projects, 1);
});

test('only entity admins and instance admins may delete; readers may count', async (t) => {
  const adminKey = randomBytes(20).toString('hex');
  const h = await buildTestApp(t, { HEDDLE_ADMIN_KEY: adminKey });
  await h.app.services.auth.bootstrapAdmin(adminKey, 'admin');
  await seed(h, PROJECT);
  const member = await h.app.services.auth.createKey({ entity: 'acme', username: 'carol' });
  const refused = await del(h, 'acme/demo', member.key);
  assert.equal(refused.statusCode, 403, refused.body);
  assert.match(refused.json().reason, /Only an admin of (entity acme|an entity)/);
  assert.equal((await h.get('/projects/acme/demo/usage', member.key)).statusCode, 200);
  assert.equal((await del(h, 'acme/demo', h.bobKey)).statusCode, 403);
  assert.equal((await h.get('/projects/acme/demo/usage', h.bobKey)).statusCode, 403);
  assert.equal((await del(h, 'acme/nothing-here')).statusCode, 404);
  assert.equal((await del(h, 'acme/a%20b')).statusCode, 400);
  const res = await h.app.inject({
    method: 'DELETE',
    url: '/projects/acme/demo',
    headers: { authorization: `Bearer ${adminKey}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().remaining_rows, 0);
});
