import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

test('a call written with start and end reads back merged', async (t) => {
  const h = await buildTestApp(t);
  const start = await h.post('/call/start', makeStart({ id: 's1', inputs: { q: 'hi' } }));
  assert.equal(start.statusCode, 200);
  assert.deepEqual(start.json(), { id: 's1', trace_id: 's1' });
  assert.equal((await h.post('/call/end', makeEnd('s1', { output: 'hello' }))).statusCode, 200);
  const read = await h.post('/call/read', { project_id: PROJECT, id: 's1' });
  const call = read.json().call;
  assert.equal(call.output, 'hello');
  assert.deepEqual(call.inputs, { q: 'hi' });
  assert.equal(call.summary.weave.status, 'success');
});
