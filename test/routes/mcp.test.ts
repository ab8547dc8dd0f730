import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicAuth, buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { callTool, mcpClient } from '../helpers/mcp.js';

/**
 * `/mcp` (docs/mcp.md) driven by the official TypeScript MCP client (@modelcontextprotocol/sdk)
 * over app.inject: every tool, paging and bounds, tenancy and roles, and the transport's refusals.
 */

const TOOLS = [
  'query_calls',
  'count_calls',
  'get_call',
  'get_trace',
  'query_threads',
  'get_thread',
  'list_evaluations',
  'compare_evaluations',
  'query_objects',
  'read_object',
  'query_dataset_rows',
  'add_dataset_row',
  'add_feedback',
];
const EVAL_OP = `weave:///${PROJECT}/op/Evaluation.evaluate:abc123`;

async function ok(h: TestApp, url: string, body: unknown): Promise<any> {
  const res = await h.post(url, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function call(h: TestApp, id: string, start: Record<string, unknown>, end: Record<string, unknown> = {}) {
  await ok(h, '/call/start', makeStart({ id, ...start }));
  await ok(h, '/call/end', makeEnd(id, end));
}

/** A trace of three calls, a thread of two turns, an evaluation, and a dataset of two rows. */
async function seed(h: TestApp): Promise<void> {
  await call(h, 'root', { trace_id: 't1', op_name: 'agent', inputs: { q: 'hi' } }, { output: 'done' });
  await call(h, 'child-a', {
    trace_id: 't1',
    parent_id: 'root',
    op_name: 'chat',
    started_at: '2025-01-01T10:00:00.1Z',
  });
  await call(
    h,
    'child-b',
    { trace_id: 't1', parent_id: 'root', op_name: 'chat', started_at: '2025-01-01T10:00:00.2Z' },
    { exception: 'ValueError: boom' },
  );
  for (const [n, id] of ['turn-1', 'turn-2'].entries())
    await call(
      h,
      id,
      {
        trace_id: id,
        op_name: 'turn',
        thread_id: 'th-1',
        turn_id: id,
        inputs: { msg: `m${n}` },
        started_at: `2025-01-02T10:0${n}:00Z`,
      },
      { output: `reply ${n}`, ended_at: `2025-01-02T10:0${n}:01Z` },
    );
  await call(
    h,
    'eval-1',
    { trace_id: 'te', op_name: EVAL_OP, started_at: '2025-01-03T10:00:00Z' },
    {
      output: { accuracy: { mean: 0.5 } },
      ended_at: '2025-01-03T10:00:05Z',
    },
  );
  // two trials of eval-1: one passes the `exact` scorer, one fails it
  for (const [n, exact] of [true, false].entries())
    await call(
      h,
      `trial-${n}`,
      { trace_id: 'te', parent_id: 'eval-1', op_name: 'Evaluation.predict_and_score', inputs: { example: { q: n } } },
      { output: { output: n, scores: { exact } } },
    );
  const table = await ok(h, '/table/create', { table: { project_id: PROJECT, rows: [{ q: 'a' }, { q: 'b' }] } });
  await ok(h, '/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'qa',
      val: {
        _type: 'Dataset',
        _class_name: 'Dataset',
        _bases: ['Object', 'BaseModel'],
        name: 'qa',
        rows: `weave:///${PROJECT}/table/${table.digest}`,
      },
    },
  });
}

test('the official client lists the tools and reads calls, traces and threads', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const client = await mcpClient(h.app, basicAuth(h.aliceKey));
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, 'heddle');
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOLS].sort());
  assert.equal(tools.find((tool) => tool.name === 'add_feedback')?.annotations?.readOnlyHint, false);
  assert.equal(tools.find((tool) => tool.name === 'query_calls')?.annotations?.readOnlyHint, true);

  // the query language, as /calls/stream_query takes it, and paging
  const chats = { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'chat' }] } };
  const first = await callTool(client, 'query_calls', { project_id: PROJECT, query: chats, limit: 1 });
  assert.equal(first.isError, false, JSON.stringify(first.value));
  assert.deepEqual(
    first.value.calls.map((c: any) => c.id),
    ['child-b'],
  );
  assert.equal(first.value.next_offset, 1);
  assert.match(first.value.paging, /offset=1/);
  const second = await callTool(client, 'query_calls', { project_id: PROJECT, query: chats, limit: 1, offset: 1 });
  assert.deepEqual(
    second.value.calls.map((c: any) => c.id),
    ['child-a'],
  );
  assert.equal(second.value.next_offset, null);
  const roots = await callTool(client, 'count_calls', { project_id: PROJECT, filter: { trace_roots_only: true } });
  assert.deepEqual(roots.value, { count: 4 });
  const counted = await callTool(client, 'count_calls', { project_id: PROJECT, query: chats });
  assert.deepEqual(counted.value, { count: 2 });

  const opened = await callTool(client, 'get_call', { project_id: PROJECT, call_id: 'child-b' });
  assert.equal(opened.value.call.exception, 'ValueError: boom');
  assert.equal(opened.value.call.summary.weave.status, 'error');
  const trace = await callTool(client, 'get_trace', { project_id: PROJECT, trace_id: 't1' });
  assert.deepEqual(
    trace.value.calls.map((c: any) => [c.id, c.parent_id]),
    [
      ['root', null],
      ['child-a', 'root'],
      ['child-b', 'root'],
    ],
  );
  assert.equal(trace.value.calls[0].inputs, undefined, 'an outline leaves inputs to get_call');

  const threads = await callTool(client, 'query_threads', { project_id: PROJECT });
  assert.deepEqual(
    threads.value.threads.map((th: any) => [th.thread_id, th.turn_count]),
    [['th-1', 2]],
  );
  const thread = await callTool(client, 'get_thread', { project_id: PROJECT, thread_id: 'th-1' });
  assert.deepEqual(
    thread.value.turns.map((turn: any) => [turn.id, turn.output]),
    [
      ['turn-1', 'reply 0'],
      ['turn-2', 'reply 1'],
    ],
  );

  const evals = await callTool(client, 'list_evaluations', { project_id: PROJECT });
  assert.deepEqual(
    evals.value.evaluations.map((e: any) => [e.id, e.output]),
    [['eval-1', { accuracy: { mean: 0.5 } }]],
  );
  const compared = await callTool(client, 'compare_evaluations', {
    project_id: PROJECT,
    evaluation_call_ids: ['eval-1'],
  });
  assert.equal(compared.isError, false, JSON.stringify(compared.value));
  const [stats] = compared.value.summary.evaluations[0].scorer_stats;
  assert.deepEqual([stats.scorer_key, stats.pass_true_count, stats.pass_known_count], ['exact', 1, 2]);
  assert.equal(compared.value.total_rows, 2);
  const byRow = await callTool(client, 'compare_evaluations', {
    project_id: PROJECT,
    evaluation_call_ids: ['eval-1'],
    include_rows: true,
    limit: 1,
  });
  assert.equal(byRow.value.rows.length, 1);
  assert.equal(byRow.value.next_offset, 1, JSON.stringify(byRow.value));
  assert.equal(byRow.value.rows[0].evaluations[0].trials.length, 1);
});

test('objects and dataset rows; a row added makes a new dataset version; feedback is added', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const client = await mcpClient(h.app, basicAuth(h.aliceKey));
  t.after(() => client.close());
  const listed = await callTool(client, 'query_objects', { project_id: PROJECT, base_object_classes: ['Dataset'] });
  assert.deepEqual(
    listed.value.objects.map((o: any) => [o.object_id, o.version_index]),
    [['qa', 0]],
  );
  const read = await callTool(client, 'read_object', { project_id: PROJECT, object_id: 'qa' });
  assert.equal(read.value.object.val.name, 'qa');
  const rows = await callTool(client, 'query_dataset_rows', { project_id: PROJECT, dataset: 'qa', limit: 1 });
  assert.equal(rows.value.total_rows, 2);
  assert.deepEqual(
    rows.value.rows.map((r: any) => r.val),
    [{ q: 'a' }],
  );
  assert.equal(rows.value.next_offset, 1);

  const added = await callTool(client, 'add_dataset_row', { project_id: PROJECT, dataset: 'qa', row: { q: 'c' } });
  assert.equal(added.isError, false, JSON.stringify(added.value));
  assert.equal(added.value.dataset, 'qa:v1');
  const after = await callTool(client, 'query_dataset_rows', { project_id: PROJECT, dataset: 'qa' });
  assert.deepEqual(
    after.value.rows.map((r: any) => r.val),
    [{ q: 'a' }, { q: 'b' }, { q: 'c' }],
  );
  const before = await callTool(client, 'query_dataset_rows', { project_id: PROJECT, dataset: 'qa', digest: 'v0' });
  assert.equal(before.value.total_rows, 2, 'the old version keeps its rows');

  const note = await callTool(client, 'add_feedback', { project_id: PROJECT, call_id: 'root', note: 'wrong tool' });
  assert.equal(note.isError, false, JSON.stringify(note.value));
  const emoji = await callTool(client, 'add_feedback', { project_id: PROJECT, call_id: 'root', emoji: '👍' });
  assert.equal(emoji.value.feedback_type, 'wandb.reaction.1');
  const stored = await ok(h, '/feedback/query', { project_id: PROJECT });
  assert.deepEqual(stored.result.map((f: any) => f.feedback_type).sort(), ['wandb.note.1', 'wandb.reaction.1']);
  const opened = await callTool(client, 'get_call', { project_id: PROJECT, call_id: 'root' });
  assert.equal(opened.value.call.summary.weave.feedback.length, 2);

  const missing = await callTool(client, 'add_feedback', { project_id: PROJECT, call_id: 'nope', note: 'x' });
  assert.equal(missing.isError, true);
  assert.equal(missing.value.error.status, 404);
  const both = await callTool(client, 'add_feedback', { project_id: PROJECT, call_id: 'root', note: 'x', emoji: '👍' });
  assert.equal(both.value.error.status, 400);
});

test("another entity's project is refused; a viewer reads but every write tool is refused", async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const bob = await mcpClient(h.app, basicAuth(h.bobKey));
  t.after(() => bob.close());
  const viewerKey = await h.app.services.auth.createKey({ entity: 'acme', username: 'vera' });
  await h.store.auth.setMembershipRole(viewerKey.record.userId, 'acme', 'viewer');
  // Bearer works like Basic
  const viewer = await mcpClient(h.app, `Bearer ${viewerKey.key}`);
  t.after(() => viewer.close());

  const reads: Array<[string, Record<string, unknown>]> = [
    ['query_calls', { project_id: PROJECT }],
    ['count_calls', { project_id: PROJECT }],
    ['get_call', { project_id: PROJECT, call_id: 'root' }],
    ['get_trace', { project_id: PROJECT, trace_id: 't1' }],
    ['query_threads', { project_id: PROJECT }],
    ['get_thread', { project_id: PROJECT, thread_id: 'th-1' }],
    ['list_evaluations', { project_id: PROJECT }],
    ['compare_evaluations', { project_id: PROJECT, evaluation_call_ids: ['eval-1'] }],
    ['query_objects', { project_id: PROJECT }],
    ['read_object', { project_id: PROJECT, object_id: 'qa' }],
    ['query_dataset_rows', { project_id: PROJECT, dataset: 'qa' }],
  ];
  const writes: Array<[string, Record<string, unknown>]> = [
    ['add_dataset_row', { project_id: PROJECT, dataset: 'qa', row: { q: 'x' } }],
    ['add_feedback', { project_id: PROJECT, call_id: 'root', note: 'x' }],
  ];
  assert.deepEqual([...reads, ...writes].map(([name]) => name).sort(), [...TOOLS].sort());
  for (const [name, args] of [...reads, ...writes]) {
    const res = await callTool(bob, name, args);
    assert.equal(res.isError, true, `${name} across entities: ${JSON.stringify(res.value)}`);
    assert.equal(res.value.error.status, 403, name);
  }
  for (const [name, args] of reads) {
    const res = await callTool(viewer, name, args);
    assert.equal(res.isError, false, `viewer ${name}: ${JSON.stringify(res.value)}`);
  }
  for (const [name, args] of writes) {
    const res = await callTool(viewer, name, args);
    assert.equal(res.isError, true, `viewer ${name}`);
    assert.equal(res.value.error.status, 403, name);
    assert.match(res.value.error.reason, /viewer/i);
  }
  const feedback = await ok(h, '/feedback/query', { project_id: PROJECT });
  assert.equal(feedback.result.length, 0, 'a refused write wrote nothing');
  const rows = await callTool(viewer, 'query_dataset_rows', { project_id: PROJECT, dataset: 'qa' });
  assert.equal(rows.value.total_rows, 2);
});

test('results are bounded: long values are shortened, bad arguments and queries are tool errors', async (t) => {
  const h = await buildTestApp(t);
  await call(h, 'big', { inputs: { text: 'x'.repeat(300_000), list: Array.from({ length: 5000 }, (_, i) => i) } });
  for (let i = 0; i < 30; i += 1) await call(h, `wide-${i}`, { inputs: { text: 'y'.repeat(20_000) } });
  const client = await mcpClient(h.app, basicAuth(h.aliceKey));
  t.after(() => client.close());
  const opened = await callTool(client, 'get_call', { project_id: PROJECT, call_id: 'big' });
  assert.equal(opened.value.truncated, true);
  assert.ok(opened.chars <= 60_000, `${opened.chars} characters`);
  assert.match(opened.value.call.inputs.text, /more characters\]$/);

  const page = await callTool(client, 'query_calls', { project_id: PROJECT, limit: 100 });
  assert.ok(page.chars <= 60_000, `${page.chars} characters`);
  assert.ok(
    page.value.returned < 31 && page.value.next_offset === page.value.returned,
    JSON.stringify(page.value.paging),
  );

  const badArgs = await callTool(client, 'query_calls', { project_id: PROJECT, limit: 1000, nope: 1 });
  assert.equal(badArgs.isError, true);
  assert.equal(badArgs.value.error.status, 422);
  const badQuery = await callTool(client, 'query_calls', { project_id: PROJECT, query: { $expr: { $bogus: [] } } });
  assert.equal(badQuery.isError, true);
  assert.ok(badQuery.value.error.status >= 400 && badQuery.value.error.status < 500, JSON.stringify(badQuery.value));
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
});

test('the transport: credentials, versions, notifications, batches and methods', async (t) => {
  const h = await buildTestApp(t);
  const send = (body: unknown, headers: Record<string, string> = {}, key: string | null = h.aliceKey) =>
    h.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(key === null ? {} : { authorization: basicAuth(key) }),
        ...headers,
      },
      payload: JSON.stringify(body),
    });
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  assert.equal((await send(ping, {}, null)).statusCode, 401);
  const pong = await send(ping);
  assert.equal(pong.statusCode, 200);
  assert.deepEqual(pong.json(), { jsonrpc: '2.0', id: 1, result: {} });
  const old = await send(ping, { 'mcp-protocol-version': '1999-01-01' });
  assert.equal(old.statusCode, 400);
  assert.match(old.json().error.message, /Unsupported MCP-Protocol-Version/);
  assert.equal((await send({ jsonrpc: '2.0', method: 'notifications/initialized' })).statusCode, 202);
  const unknown = await send({ jsonrpc: '2.0', id: 'u', method: 'resources/list' });
  assert.equal(unknown.json().error.code, -32601);
  const malformed = await send({ id: 3, method: 'ping' });
  assert.equal(malformed.statusCode, 400);
  assert.equal(malformed.json().error.code, -32600);
  const batch = await send([ping, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...ping, id: 2 }]);
  assert.deepEqual(
    batch.json().map((r: any) => r.id),
    [1, 2],
  );
  const init = await send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2030-01-01', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  assert.equal(init.json().result.protocolVersion, '2025-11-25', 'an unknown revision gets the newest');
  const foreign = await send(ping, { origin: 'https://evil.example' });
  assert.equal(foreign.statusCode, 403, 'another origin is refused');
  assert.match(foreign.json().error.message, /Origin/);
  assert.equal((await send(ping, { origin: 'http://heddle.test', host: 'heddle.test' })).statusCode, 200);
  const badArgs = await send({
    jsonrpc: '2.0',
    id: 9,
    method: 'tools/call',
    params: { name: 'get_call', arguments: { project_id: PROJECT } },
  });
  const badText = JSON.parse(badArgs.json().result.content[0].text);
  assert.equal(badText.error.status, 422);
  assert.deepEqual(badText.error.detail[0].loc, ['arguments', 'call_id'], 'the detail names the argument');
  for (const method of ['GET', 'DELETE'] as const) {
    const res = await h.app.inject({ method, url: '/mcp', headers: { authorization: basicAuth(h.aliceKey) } });
    assert.equal(res.statusCode, 405, method);
  }
});
