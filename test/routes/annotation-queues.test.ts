import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { basicAuth, buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** Annotation queues (docs/spec/otel-service-queues.md §D; checklist items 28–35). */

type Json = Record<string, any>;
const Q = '/annotation_queues';
const P = encodeURIComponent(PROJECT);
const UNKNOWN = '019b2f4e-7a10-7c3e-9d21-5b0e6f4a1c88';
const REF = `weave:///${PROJECT}/object/helpfulness:9f2c`;

function send(
  h: TestApp,
  method: 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  key: string | null = h.aliceKey,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = key === null ? {} : { authorization: basicAuth(key) };
  if (body === undefined) return h.app.inject({ method, url, headers });
  return h.app.inject({
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** Awaits a response, asserts 200 and returns its JSON. */
async function ok(pending: Promise<LightMyRequestResponse>): Promise<Json> {
  const res = await pending;
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const createQueue = async (h: TestApp, body: Json = {}, key?: string): Promise<string> =>
  (await ok(h.post(Q, { project_id: PROJECT, name: 'Review', scorer_refs: [REF], ...body }, key))).id;
const readQueue = async (h: TestApp, id: string): Promise<Json> =>
  (await ok(h.get(`${Q}/${id}?project_id=${P}`))).queue;
const addItems = (h: TestApp, queueId: string, callIds: string[]): Promise<Json> =>
  ok(
    h.post(`${Q}/${queueId}/items`, {
      project_id: PROJECT,
      call_ids: callIds,
      display_fields: ['inputs.city', 'output.text'],
    }),
  );
const queryItems = async (h: TestApp, queueId: string, body: Json = {}): Promise<Json[]> =>
  (await ok(h.post(`${Q}/${queueId}/items/query`, { project_id: PROJECT, ...body }))).items;
const progress = (
  h: TestApp,
  queueId: string,
  itemId: string,
  state: string,
  key?: string,
): Promise<LightMyRequestResponse> =>
  h.post(`${Q}/${queueId}/items/${itemId}/progress`, { project_id: PROJECT, annotation_state: state }, key);
const carolKey = async (h: TestApp): Promise<string> =>
  (await h.app.services.auth.createKey({ entity: 'acme', username: 'carol' })).key;

async function listNames(h: TestApp, body: Json = {}): Promise<string[]> {
  const res = await h.post(`${Q}/query`, { project_id: PROJECT, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return parseJsonl(res.body).map((q) => q.name as string);
}

/** Calls c1..cN started a minute apart (c1, c2 op `chat`, the rest `search`); the odd ones are finished. */
async function makeCalls(h: TestApp, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    await ok(
      h.post(
        '/call/start',
        makeStart({ id: `c${i}`, op_name: i <= 2 ? 'chat' : 'search', started_at: `2025-01-01T10:0${i}:00Z` }),
      ),
    );
    if (i % 2 === 1) await ok(h.post('/call/end', makeEnd(`c${i}`, { ended_at: `2025-01-01T10:0${i}:30Z` })));
  }
}

/** A queue holding the given calls, with its items in insertion order. */
async function queueWith(h: TestApp, callIds: string[]): Promise<{ queueId: string; items: Json[] }> {
  const queueId = await createQueue(h);
  await addItems(h, queueId, callIds);
  return { queueId, items: await queryItems(h, queueId) };
}

const ms = (iso: string): number => Date.parse(iso);
const pick = (o: Json, keys: string[]): Json => Object.fromEntries(keys.map((k) => [k, o[k]]));

test('item 28: create answers {id}; read returns the fields, description "" when omitted, created_by = the caller, deleted_at null', async (t: TestContext) => {
  const h = await buildTestApp(t);
  const res = await h.post(Q, { project_id: PROJECT, name: 'Tool failures', scorer_refs: [REF, 'not a ref'] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(Object.keys(res.json()), ['id']);
  const queue = await readQueue(h, res.json().id);
  const fields = {
    id: res.json().id,
    project_id: PROJECT,
    name: 'Tool failures',
    description: '',
    scorer_refs: [REF, 'not a ref'],
    deleted_at: null,
    updated_at: queue.created_at,
  };
  assert.deepEqual(
    pick(queue, Object.keys(fields)),
    fields,
    'description "" by default; refs as given; updated_at = created_at',
  );
  assert.ok(typeof queue.created_by === 'string' && queue.created_by !== '', 'created_by is set');
  const described = await readQueue(h, await createQueue(h, { description: 'why' }));
  assert.equal(described.description, 'why');
  assert.equal(described.created_by, queue.created_by, 'same caller, same created_by');
  const carols = await readQueue(h, await createQueue(h, {}, await carolKey(h)));
  assert.notEqual(carols.created_by, queue.created_by, 'created_by is the authenticated user');
});

test('item 29: query streams JSONL newest first; name is a case-insensitive substring; limit/offset pages are disjoint', async (t) => {
  const h = await buildTestApp(t);
  for (const name of ['Alpha review', 'beta', 'ALPHA two', 'gamma 100%']) {
    await createQueue(h, { name });
    await sleep(5);
  }
  await h.post(Q, { project_id: 'acme/elsewhere', name: 'alpha elsewhere', scorer_refs: [] });
  const res = await h.post(`${Q}/query`, { project_id: PROJECT });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/jsonl/);
  const all = parseJsonl(res.body);
  assert.deepEqual(
    all.map((q) => q.name),
    ['gamma 100%', 'ALPHA two', 'beta', 'Alpha review'],
    'created_at desc; other projects absent',
  );
  assert.ok(all.every((q) => q.project_id === PROJECT && q.deleted_at === null && Array.isArray(q.scorer_refs)));
  assert.deepEqual(await listNames(h, { name: 'alpha' }), ['ALPHA two', 'Alpha review']);
  assert.deepEqual(await listNames(h, { name: 'A R' }), ['Alpha review']);
  assert.deepEqual(await listNames(h, { name: '0%' }), ['gamma 100%'], '% is literal');
  assert.deepEqual(await listNames(h, { name: 'a%e' }), [], '% is not a wildcard');
  const page1 = await listNames(h, { limit: 2 });
  const page2 = await listNames(h, { limit: 2, offset: 2 });
  assert.deepEqual(page1, ['gamma 100%', 'ALPHA two']);
  assert.deepEqual(page2, ['beta', 'Alpha review'], 'second page continues where the first stopped');
  assert.deepEqual(await listNames(h, { sort_by: [{ field: 'created_at', direction: 'asc' }] }), [
    'Alpha review',
    'beta',
    'ALPHA two',
    'gamma 100%',
  ]);
});

test('item 30: read, update and delete of an unknown queue → 404; delete twice → 404; a deleted queue is gone from query', async (t) => {
  const h = await buildTestApp(t);
  const unknown = [
    await h.get(`${Q}/${UNKNOWN}?project_id=${P}`),
    await send(h, 'PUT', `${Q}/${UNKNOWN}`, { project_id: PROJECT, name: 'x' }),
    await send(h, 'DELETE', `${Q}/${UNKNOWN}?project_id=${P}`),
  ];
  for (const res of unknown) {
    assert.equal(res.statusCode, 404, res.body);
    assert.match(res.json().reason, new RegExp(`Queue ${UNKNOWN} not found`));
  }
  const id = await createQueue(h, { name: 'doomed' });
  const keep = await createQueue(h, { name: 'kept' });
  assert.equal(
    (await h.get(`${Q}/${id}?project_id=acme%2Felsewhere`)).statusCode,
    404,
    'another project does not see it',
  );
  assert.equal((await h.get(`${Q}/${id}`)).statusCode, 422, 'read without project_id');
  assert.equal((await send(h, 'DELETE', `${Q}/${id}`)).statusCode, 422, 'delete without project_id');
  const before = await readQueue(h, id);
  await sleep(5);
  const del = await send(h, 'DELETE', `${Q}/${id}?project_id=${P}`);
  assert.equal(del.statusCode, 200, del.body);
  const deleted = del.json().queue;
  assert.ok(deleted.deleted_at !== null, 'deleted_at set');
  assert.equal(deleted.updated_at, deleted.deleted_at, 'updated_at = deleted_at');
  assert.ok(ms(deleted.deleted_at) > ms(before.updated_at), 'deleted_at is now');
  assert.deepEqual({ ...deleted, deleted_at: null, updated_at: before.updated_at }, before, 'other fields unchanged');
  const again = await send(h, 'DELETE', `${Q}/${id}?project_id=${P}`);
  assert.equal(again.statusCode, 404, again.body);
  assert.equal(again.json().reason, `Queue ${id} not found or already deleted`);
  assert.equal((await h.get(`${Q}/${id}?project_id=${P}`)).statusCode, 404);
  assert.equal((await send(h, 'PUT', `${Q}/${id}`, { project_id: PROJECT, name: 'x' })).statusCode, 404);
  assert.deepEqual(await listNames(h), ['kept']);
  assert.equal((await readQueue(h, keep)).deleted_at, null);
});

test('item 31: a partial update changes only the given fields and bumps updated_at; an empty update returns the queue unchanged', async (t) => {
  const h = await buildTestApp(t);
  const id = await createQueue(h, { name: 'n', description: 'd', scorer_refs: ['r1'] });
  const created = await readQueue(h, id);
  await sleep(5);
  const res = await send(h, 'PUT', `${Q}/${id}`, { project_id: PROJECT, name: 'n2' });
  assert.equal(res.statusCode, 200, res.body);
  const renamed = res.json().queue;
  assert.deepEqual(
    { ...renamed, updated_at: created.updated_at },
    { ...created, name: 'n2' },
    'only name and updated_at change',
  );
  assert.ok(
    ms(renamed.updated_at) > ms(created.updated_at),
    `updated_at bumped: ${created.updated_at} → ${renamed.updated_at}`,
  );
  assert.deepEqual(await readQueue(h, id), renamed, 'the update is stored');
  await sleep(5);
  const cleared = (await send(h, 'PUT', `${Q}/${id}`, { project_id: PROJECT, description: '', scorer_refs: [] })).json()
    .queue;
  assert.equal(cleared.name, 'n2');
  assert.equal(cleared.description, '', '"" is a real value');
  assert.deepEqual(cleared.scorer_refs, [], '[] is a real value');
  assert.ok(ms(cleared.updated_at) > ms(renamed.updated_at));
  await sleep(5);
  const empty = await send(h, 'PUT', `${Q}/${id}`, { project_id: PROJECT });
  assert.equal(empty.statusCode, 200, empty.body);
  assert.deepEqual(empty.json().queue, cleared, 'no fields: unchanged, updated_at too');
  const nulls = await send(h, 'PUT', `${Q}/${id}`, {
    project_id: PROJECT,
    name: null,
    description: null,
    scorer_refs: null,
  });
  assert.equal(nulls.statusCode, 200, nulls.body);
  assert.deepEqual(nulls.json().queue, cleared, 'null means unchanged');
});

test('item 32: adding 3 calls then all 5 → added 2, duplicates 3; unknown or deleted calls are ignored; unknown queue → 404', async (t) => {
  const h = await buildTestApp(t);
  await makeCalls(h, 7);
  const queueId = await createQueue(h);
  const alice = (await readQueue(h, queueId)).created_by;
  assert.deepEqual(await addItems(h, queueId, ['c1', 'c2', 'c3']), { added_count: 3, duplicates: 0 });
  assert.deepEqual(await addItems(h, queueId, ['c1', 'c2', 'c3', 'c4', 'c5']), { added_count: 2, duplicates: 3 });
  assert.deepEqual(
    await addItems(h, queueId, ['c1', 'c2']),
    { added_count: 0, duplicates: 2 },
    'all present: duplicates = len(call_ids)',
  );
  assert.deepEqual(
    await addItems(h, queueId, ['c6', 'c6', 'no-such-call', 'c4']),
    { added_count: 1, duplicates: 1 },
    'same id twice makes one item; unknown id in neither count',
  );
  await ok(h.post('/calls/delete', { project_id: PROJECT, call_ids: ['c7'] }));
  assert.deepEqual(await addItems(h, queueId, ['c7']), { added_count: 0, duplicates: 0 }, 'a deleted call is skipped');
  const items = await queryItems(h, queueId);
  assert.deepEqual(
    items.map((i) => i.call_id),
    ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'],
    'one item per call, insertion order',
  );
  assert.equal(new Set(items.map((i) => i.id)).size, 6);
  const snapshot = {
    project_id: PROJECT,
    queue_id: queueId,
    call_id: 'c1',
    call_started_at: '2025-01-01T10:01:00Z',
    call_ended_at: '2025-01-01T10:01:30Z',
    call_op_name: 'chat',
    call_trace_id: 'c1',
    display_fields: ['inputs.city', 'output.text'],
    added_by: alice,
    deleted_at: null,
  };
  assert.deepEqual(pick(items[0]!, Object.keys(snapshot)), snapshot, 'a snapshot of the call');
  assert.deepEqual(
    pick(items[3]!, ['call_ended_at', 'call_op_name']),
    { call_ended_at: null, call_op_name: 'search' },
    'unfinished call',
  );
  const res = await h.post(`${Q}/${UNKNOWN}/items`, { project_id: PROJECT, call_ids: ['c1'], display_fields: [] });
  assert.equal(res.statusCode, 404, res.body);
  assert.equal(typeof res.json().reason, 'string');
});

test('item 33: fresh items are unstarted with annotator ""; annotation_states narrows; include_position numbers 1..n in display order', async (t) => {
  const h = await buildTestApp(t);
  await makeCalls(h, 4);
  const { queueId, items } = await queueWith(h, ['c3', 'c1', 'c4', 'c2']);
  assert.deepEqual(
    items.map((i) => i.call_id),
    ['c3', 'c1', 'c4', 'c2'],
    'default order = insertion order',
  );
  for (const item of items) {
    assert.equal(item.annotation_state, 'unstarted', item.call_id);
    assert.equal(item.annotator_user_id, '', item.call_id);
    assert.equal(item.position_in_queue, null, 'no position unless asked');
  }
  const positioned = await queryItems(h, queueId, { include_position: true });
  assert.deepEqual(
    positioned.map((i) => [i.call_id, i.position_in_queue]),
    [
      ['c3', 1],
      ['c1', 2],
      ['c4', 3],
      ['c2', 4],
    ],
  );
  const byStart = await queryItems(h, queueId, {
    include_position: true,
    sort_by: [{ field: 'call_started_at', direction: 'desc' }],
  });
  assert.deepEqual(
    byStart.map((i) => [i.call_id, i.position_in_queue]),
    [
      ['c4', 1],
      ['c3', 2],
      ['c2', 3],
      ['c1', 4],
    ],
  );
  const paged = await queryItems(h, queueId, { include_position: true, limit: 2, offset: 1 });
  assert.deepEqual(
    paged.map((i) => [i.call_id, i.position_in_queue]),
    [
      ['c1', 2],
      ['c4', 3],
    ],
    'position computed before limit/offset',
  );
  await ok(progress(h, queueId, items[1]!.id, 'completed'));
  await ok(progress(h, queueId, items[2]!.id, 'skipped'));
  const done = await queryItems(h, queueId, {
    include_position: true,
    filter: { annotation_states: ['completed', 'skipped'] },
  });
  assert.deepEqual(
    done.map((i) => [i.call_id, i.annotation_state, i.position_in_queue]),
    [
      ['c1', 'completed', 2],
      ['c4', 'skipped', 3],
    ],
    'position computed before the state filter',
  );
  assert.deepEqual(
    (await queryItems(h, queueId, { filter: { annotation_states: ['unstarted'] } })).map((i) => i.call_id),
    ['c3', 'c2'],
  );
  assert.deepEqual(await queryItems(h, queueId, { filter: { annotation_states: ['in_progress'] } }), []);
  const search = await queryItems(h, queueId, { include_position: true, filter: { call_op_name: 'search' } });
  assert.deepEqual(
    search.map((i) => [i.call_id, i.position_in_queue]),
    [
      ['c3', 1],
      ['c4', 2],
    ],
    'exact-match filters apply before positions',
  );
  assert.deepEqual(
    (await queryItems(h, queueId, { filter: { call_id: 'c2' } })).map((i) => i.call_id),
    ['c2'],
  );
  assert.deepEqual(
    (await queryItems(h, queueId, { filter: { id: items[0]!.id } })).map((i) => i.call_id),
    ['c3'],
  );
  assert.deepEqual(
    (await queryItems(h, queueId, { filter: { call_trace_id: 'c4' } })).map((i) => i.call_id),
    ['c4'],
  );
  assert.equal((await queryItems(h, queueId, { filter: { added_by: items[0]!.added_by } })).length, 4);
  assert.deepEqual(await queryItems(h, queueId, { filter: { added_by: 'nobody' } }), []);
});

test('item 34: progress transitions: none→completed, completed→completed ok; completed→skipped, in_progress after a record, bad states and unknown items → 400', async (t) => {
  const h = await buildTestApp(t);
  await makeCalls(h, 3);
  const { queueId, items } = await queueWith(h, ['c1', 'c2', 'c3']);
  const alice = (await readQueue(h, queueId)).created_by;
  const expect400 = async (res: LightMyRequestResponse, reason: RegExp, what: string) => {
    assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
    assert.match(res.json().reason, reason, what);
  };
  const expected = {
    id: items[0]!.id,
    call_id: 'c1',
    annotation_state: 'completed',
    annotator_user_id: alice,
    position_in_queue: null,
  };
  assert.deepEqual(
    pick((await ok(progress(h, queueId, items[0]!.id, 'completed'))).item, Object.keys(expected)),
    expected,
    'none → completed',
  );
  await expect400(
    await progress(h, queueId, items[0]!.id, 'skipped'),
    /Invalid state transition/,
    'completed → skipped',
  );
  assert.equal(
    (await ok(progress(h, queueId, items[0]!.id, 'completed'))).item.annotation_state,
    'completed',
    'completed → completed is a no-op',
  );
  await expect400(
    await progress(h, queueId, items[0]!.id, 'in_progress'),
    /Cannot transition to 'in_progress'/,
    'completed → in_progress',
  );
  for (const state of ['unstarted', 'done'])
    await expect400(await progress(h, queueId, items[1]!.id, state), /Invalid annotation_state/, state);
  assert.equal(
    (await queryItems(h, queueId, { filter: { id: items[1]!.id } }))[0]!.annotation_state,
    'unstarted',
    'rejected requests write nothing',
  );
  assert.equal((await progress(h, queueId, items[1]!.id, 'in_progress')).json().item.annotation_state, 'in_progress');
  assert.equal(
    (await progress(h, queueId, items[1]!.id, 'in_progress')).statusCode,
    200,
    'in_progress → in_progress is a no-op',
  );
  assert.equal(
    (await progress(h, queueId, items[1]!.id, 'skipped')).json().item.annotation_state,
    'skipped',
    'in_progress → skipped',
  );
  await expect400(
    await progress(h, queueId, items[1]!.id, 'in_progress'),
    /Cannot transition to 'in_progress'/,
    'skipped → in_progress',
  );
  await expect400(await progress(h, queueId, UNKNOWN, 'completed'), /not found in queue/, 'unknown item');
  const other = await queueWith(h, ['c1']);
  await expect400(
    await progress(h, other.queueId, items[2]!.id, 'completed'),
    /not found in queue/,
    'item of another queue',
  );
  assert.equal((await progress(h, UNKNOWN, items[2]!.id, 'completed')).statusCode, 404, 'unknown queue');
  // the item state is the most recently updated record among all annotators
  await sleep(5);
  const carol = await progress(h, queueId, items[0]!.id, 'in_progress', await carolKey(h));
  assert.equal(carol.statusCode, 200, 'rules apply to the caller’s own record');
  assert.equal(carol.json().item.annotation_state, 'in_progress');
  assert.ok(
    carol.json().item.annotator_user_id !== alice && carol.json().item.annotator_user_id !== '',
    'annotator of the latest record',
  );
});

test('item 35: stats count items and items with a completed/skipped record; unknown ids → zeros in request order; [] → {stats: []}', async (t) => {
  const h = await buildTestApp(t);
  await makeCalls(h, 5);
  const { queueId, items } = await queueWith(h, ['c1', 'c2', 'c3', 'c4', 'c5']);
  const empty = await createQueue(h);
  const carol = await carolKey(h);
  await ok(progress(h, queueId, items[0]!.id, 'completed'));
  await ok(progress(h, queueId, items[1]!.id, 'completed'));
  await ok(progress(h, queueId, items[2]!.id, 'skipped'));
  await ok(progress(h, queueId, items[3]!.id, 'in_progress'));
  assert.equal(
    (await progress(h, queueId, items[0]!.id, 'completed', carol)).statusCode,
    200,
    'a second record on a completed item',
  );
  await sleep(5);
  assert.equal(
    (await progress(h, queueId, items[1]!.id, 'in_progress', carol)).statusCode,
    200,
    'a later in_progress record by carol',
  );
  const stats = (queueIds: string[]) => ok(h.post(`${Q}/stats`, { project_id: PROJECT, queue_ids: queueIds }));
  assert.deepEqual(await stats([UNKNOWN, queueId, empty]), {
    stats: [
      { queue_id: UNKNOWN, total_items: 0, completed_items: 0 },
      { queue_id: queueId, total_items: 5, completed_items: 3 },
      { queue_id: empty, total_items: 0, completed_items: 0 },
    ],
  });
  assert.deepEqual(await stats([]), { stats: [] });
  await ok(send(h, 'DELETE', `${Q}/${queueId}?project_id=${P}`));
  assert.deepEqual(
    (await stats([queueId])).stats,
    [{ queue_id: queueId, total_items: 5, completed_items: 3 }],
    'a deleted queue keeps its items',
  );
});

test('tenancy: bob (entity other) gets 403 on acme queues on every endpoint; no credentials → 401', async (t) => {
  const h = await buildTestApp(t);
  await makeCalls(h, 1);
  const { queueId, items } = await queueWith(h, ['c1']);
  const base = `${Q}/${queueId}`;
  const requests: Array<[string, () => Promise<LightMyRequestResponse>]> = [
    ['create', () => h.post(Q, { project_id: PROJECT, name: 'x', scorer_refs: [] }, h.bobKey)],
    ['query', () => h.post(`${Q}/query`, { project_id: PROJECT }, h.bobKey)],
    ['stats', () => h.post(`${Q}/stats`, { project_id: PROJECT, queue_ids: [queueId] }, h.bobKey)],
    ['read', () => h.get(`${base}?project_id=${P}`, h.bobKey)],
    ['update', () => send(h, 'PUT', base, { project_id: PROJECT, name: 'x' }, h.bobKey)],
    ['delete', () => send(h, 'DELETE', `${base}?project_id=${P}`, undefined, h.bobKey)],
    [
      'add items',
      () => h.post(`${base}/items`, { project_id: PROJECT, call_ids: ['c1'], display_fields: [] }, h.bobKey),
    ],
    ['query items', () => h.post(`${base}/items/query`, { project_id: PROJECT }, h.bobKey)],
    ['progress', () => progress(h, queueId, items[0]!.id, 'completed', h.bobKey)],
  ];
  for (const [what, request] of requests) assert.equal((await request()).statusCode, 403, what);
  assert.equal(
    (await h.get(`${base}?project_id=other%2Fp`, h.bobKey)).statusCode,
    404,
    'not visible from bob’s own project',
  );
  assert.equal((await h.post(`${Q}/query`, { project_id: PROJECT }, null)).statusCode, 401);
  assert.equal((await h.get(`${base}?project_id=${P}`, null)).statusCode, 401);
  const queue = await readQueue(h, queueId);
  assert.equal(queue.name, 'Review', 'bob changed nothing');
  assert.equal(queue.deleted_at, null);
  assert.equal((await queryItems(h, queueId))[0]!.annotation_state, 'unstarted');
});

test('a judgement made in a queue carries its queue_id; a queue of another project, unknown or deleted → 400 naming it', async (t) => {
  const h = await buildTestApp(t);
  await makeCalls(h, 1);
  const { queueId } = await queueWith(h, ['c1']);
  const note = (queue_id: string | null, extra: Json = {}): Json => ({
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/c1`,
    feedback_type: 'wandb.note.1',
    payload: { note: 'looks right' },
    queue_id,
    ...extra,
  });
  const created = await ok(h.post('/feedback/create', note(queueId)));
  const [batched] = (await ok(h.post('/feedback/batch/create', { batch: [note(queueId)] }))).res;
  const replaced = await ok(h.post('/feedback/replace', { ...note(queueId), feedback_id: batched.id }));
  await ok(h.post('/feedback/create', note(null)));
  const inQueue = await ok(
    h.post('/feedback/query', {
      project_id: PROJECT,
      query: { $expr: { $eq: [{ $getField: 'queue_id' }, { $literal: queueId }] } },
      sort_by: [{ field: 'created_at', direction: 'asc' }],
    }),
  );
  assert.deepEqual(
    inQueue.result.map((row: Json) => [row.id, row.queue_id]),
    [
      [created.id, queueId],
      [replaced.id, queueId],
    ],
  );

  const otherQueue = (await ok(h.post(Q, { project_id: 'other/p', name: 'Theirs', scorer_refs: [] }, h.bobKey)))
    .id as string;
  const deleted = await createQueue(h, { name: 'Gone' });
  await ok(send(h, 'DELETE', `${Q}/${deleted}?project_id=${P}`));
  for (const bad of [otherQueue, UNKNOWN, deleted]) {
    for (const [url, body] of [
      ['/feedback/create', note(bad)],
      ['/feedback/batch/create', { batch: [note(queueId), note(bad)] }],
      ['/feedback/replace', { ...note(bad), feedback_id: created.id }],
    ] as const) {
      const res = await h.post(url, body);
      assert.equal(res.statusCode, 400, `${url} ${bad}: ${res.body}`);
      assert.match(res.json().reason, new RegExp(bad), url);
    }
  }
  const all = await ok(h.post('/feedback/query', { project_id: PROJECT }));
  assert.equal(all.total_count, 3, 'nothing stored by a refused request, the replaced row kept');
});
