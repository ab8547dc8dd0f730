import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, parseJsonl, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** A finished call as the Python client sends it to `/v2/{entity}/{project}/calls/complete`. */
function completeCall(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { start } = makeStart(overrides);
  return {
    ...start,
    ended_at: '2025-01-01T10:00:01.5Z',
    exception: null,
    output: { answer: 4 },
    summary: { status_counts: { success: 1, error: 0 } },
    otel_dump: null,
    wb_user_id: null,
    wb_run_id: null,
    wb_run_step: null,
    wb_run_step_end: null,
    ...overrides,
  };
}

test('calls/complete writes finished calls that read back with start and end merged', async (t) => {
  const h = await buildTestApp(t);
  const child = completeCall({
    id: 'k2',
    trace_id: 'k1',
    parent_id: 'k1',
    op_name: 'child',
    exception: '{"type":"ValueError","message":"boom"}',
  });
  const parent = completeCall({
    id: 'k1',
    trace_id: 'k1',
    op_name: 'parent',
    summary: { status_counts: { success: 1, error: 1 } },
  });
  const res = await h.post('/v2/acme/demo/calls/complete', { batch: [child, parent] });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), {});
  const lines = parseJsonl((await h.post('/calls/stream_query', { project_id: PROJECT })).body);
  assert.deepEqual(
    lines.map((c) => [c.id, c.parent_id, (c.summary as { weave: { status: string } }).weave.status]),
    [
      ['k1', null, 'descendant_error'],
      ['k2', 'k1', 'error'],
    ],
  );
  assert.deepEqual(lines[0]!.output, { answer: 4 });
  assert.equal((lines[0]!.summary as { weave: { latency_ms: number } }).weave.latency_ms, 1500);
});

test('calls/complete rejects an item of another project than the route and writes nothing', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/v2/acme/demo/calls/complete', {
    batch: [completeCall({ id: 'ok' }), completeCall({ id: 'bad', project_id: 'acme/elsewhere' })],
  });
  assert.equal(res.statusCode, 400);
  assert.match(res.json().reason, /does not match the project of the route/);
  const read = await h.post('/call/read', { project_id: PROJECT, id: 'ok' });
  assert.equal(read.json().call, null);
});

test('calls/complete enforces tenancy and the schema', async (t) => {
  const h = await buildTestApp(t);
  const other = await h.post('/v2/other/x/calls/complete', { batch: [completeCall({ project_id: 'other/x' })] });
  assert.equal(other.statusCode, 403);
  const missingEnd = completeCall();
  delete missingEnd.ended_at;
  const invalid = await h.post('/v2/acme/demo/calls/complete', { batch: [missingEnd] });
  assert.equal(invalid.statusCode, 422);
  assert.deepEqual(invalid.json().detail[0].loc, ['body', 'batch', '0', 'ended_at']);
});

test('v2 call/start and call/end write the parts of one call', async (t) => {
  const h = await buildTestApp(t);
  const start = await h.post('/v2/acme/demo/call/start', makeStart({ id: 'e1', inputs: { q: 1 } }));
  assert.deepEqual(start.json(), { id: 'e1', trace_id: 'e1' });
  const end = await h.post('/v2/acme/demo/call/end', makeEnd('e1', { output: 'done' }));
  assert.equal(end.statusCode, 200);
  const call = (await h.post('/call/read', { project_id: PROJECT, id: 'e1' })).json().call;
  assert.equal(call.output, 'done');
  assert.deepEqual(call.inputs, { q: 1 });
  const mismatch = await h.post('/v2/acme/other/call/start', makeStart({ id: 'e2' }));
  assert.equal(mismatch.statusCode, 400);
});
