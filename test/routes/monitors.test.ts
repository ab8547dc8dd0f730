import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { sampledIn } from '../../src/domain/monitors.js';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import {
  monitorValue,
  publish,
  providerEnv,
  publishJudge,
  publishModel,
  startFakeOpenAi,
} from './evaluations-server-fixture.js';

/**
 * Online monitors (docs/monitors.md): a published `Monitor` object makes this node score the calls
 * that finish after it, match its op names and query and fall in its sample, once each, as runnable
 * feedback carrying the monitor's ref as `trigger_ref`.
 */

const ENV = { HEDDLE_MONITOR_POLL_MS: '20', HEDDLE_MONITOR_SCAN_SECONDS: '0.5', HEDDLE_JOBS_CONCURRENCY: '2' };
const OP = `weave:///${PROJECT}/op/solve:abc123`;

async function setup(t: Parameters<typeof buildTestApp>[0]): Promise<{ h: TestApp; judge: string }> {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, {
    ...providerEnv(fake.baseUrl),
    HEDDLE_PROVIDER_MAX_RETRIES: '2',
    HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
    ...ENV,
  });
  const judge = await publishJudge(h, 'sum_judge', await publishModel(h, 'judge_model', 'judge'));
  return { h, judge };
}

async function call(h: TestApp, id: string, question: string, opName = OP): Promise<void> {
  const [a, b] = question.split('+').map(Number);
  const start = await h.post(
    '/call/start',
    makeStart({ id, op_name: opName, inputs: { question, expected: a! + b! }, started_at: new Date().toISOString() }),
  );
  assert.equal(start.statusCode, 200, start.body);
  const end = await h.post(
    '/call/end',
    makeEnd(id, { output: { answer: a! + b! }, ended_at: new Date().toISOString() }),
  );
  assert.equal(end.statusCode, 200, end.body);
}

async function feedback(h: TestApp): Promise<Array<Record<string, any>>> {
  const res = await h.post('/feedback/query', { project_id: PROJECT });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().result as Array<Record<string, any>>;
}

/** Waits until the monitor's scan has read every call written so far and scored its pairs. */
async function settled(h: TestApp, monitorId: string): Promise<void> {
  // generous: on PostgreSQL a long transaction anywhere on the server holds every scan back (docs/monitors.md)
  const deadline = Date.now() + 90_000;
  for (;;) {
    const head = await h.store.calls.changeHead();
    const state = await h.store.monitors.get(PROJECT, monitorId);
    const pairs = await h.store.monitors.pairs(PROJECT, monitorId);
    let unread = false;
    if (state?.active)
      // every committed write, also those PostgreSQL's scan still holds back behind an older open transaction
      for await (const _ of h.store.calls.query({
        project_id: PROJECT,
        changed_after: state.cursor,
        include_uncertain_changes: true,
        limit: 1,
      }))
        unread = true;
    if (!unread && pairs.every((p) => p.status === 'scored') && (state?.cursor.seq ?? 0) <= head.seq) {
      await sleep(50);
      const again = await h.store.monitors.pairs(PROJECT, monitorId);
      if (again.every((p) => p.status === 'scored')) return;
    }
    if (Date.now() > deadline)
      throw new Error(
        `monitor ${monitorId} did not settle: ${JSON.stringify({ state, head, unread, pairs: pairs.map((p) => p.status) })}`,
      );
    await sleep(20);
  }
}

test('an active monitor scores the matching calls that finish after it, once each, as runnable feedback', async (t) => {
  const { h, judge } = await setup(t);
  await call(h, 'before-1', '1+1');
  const monitorRef = await publish(
    h,
    'sums',
    monitorValue([judge], {
      query: { $expr: { $not: [{ $eq: [{ $getField: 'inputs.question' }, { $literal: '9+9' }] }] } },
    }),
  );
  await call(h, 'after-1', '2+3');
  await call(h, 'after-2', '4+4');
  await call(h, 'other-op', '1+2', `weave:///${PROJECT}/op/other:abc123`);
  await call(h, 'excluded', '9+9');
  await settled(h, 'sums');

  const items = await feedback(h);
  const scored = items.map((f) => f.weave_ref).sort();
  assert.deepEqual(scored, [`weave:///${PROJECT}/call/after-1`, `weave:///${PROJECT}/call/after-2`]);
  for (const f of items) {
    assert.equal(f.feedback_type, 'wandb.runnable.sum_judge');
    assert.deepEqual(f.payload, { output: { score: 9, pass: true } });
    assert.equal(f.runnable_ref, judge);
    assert.equal(f.trigger_ref, monitorRef);
    assert.match(f.call_ref, /^weave:\/\/\/acme\/demo\/call\//);
  }
  // the scorer calls it wrote are not monitored themselves; a rename later scores nothing again
  const renamed = await h.post('/call/update', { project_id: PROJECT, call_id: 'after-1', display_name: 'renamed' });
  assert.equal(renamed.statusCode, 200, renamed.body);
  await settled(h, 'sums');
  assert.equal((await feedback(h)).length, 2);
  assert.deepEqual(
    (await h.store.monitors.pairs(PROJECT, 'sums')).map((p) => p.call_id),
    ['after-1', 'after-2'],
  );
});

test('sampling is the hash of (monitor, call): exactly the sampled calls are scored', async (t) => {
  const { h, judge } = await setup(t);
  await publish(h, 'half', monitorValue([judge], { name: 'half', sampling_rate: 0.5 }));
  const ids = Array.from({ length: 24 }, (_, i) => `call-${String(i).padStart(2, '0')}`);
  for (const id of ids) await call(h, id, '1+2');
  await settled(h, 'half');
  const expected = ids.filter((id) => sampledIn(PROJECT, 'half', id, 0.5));
  assert.ok(expected.length > 0 && expected.length < ids.length, 'the sample is a proper subset');
  const scored = (await feedback(h)).map((f) => String(f.weave_ref).split('/').at(-1)).sort();
  assert.deepEqual(scored, expected);
});

test('pairs left pending (a scan out of time) are scored by the next poll without new calls; a gone call is done', async (t) => {
  const { h, judge } = await setup(t);
  await call(h, 'left-1', '1+1');
  await publish(h, 'sums', monitorValue([judge]));
  await settled(h, 'sums');
  const state = await h.store.monitors.get(PROJECT, 'sums');
  assert.ok(state);
  // what a scan leaves when its time runs out right after it read a batch
  await h.store.monitors.record(PROJECT, 'sums', state.cursor, ['left-1', 'never-written'], Date.now() * 1000);
  await settled(h, 'sums');
  assert.deepEqual(
    (await feedback(h)).map((f) => f.weave_ref),
    [`weave:///${PROJECT}/call/left-1`],
  );
  assert.deepEqual(
    (await h.store.monitors.pairs(PROJECT, 'sums')).map((p) => [p.call_id, p.status]),
    [
      ['left-1', 'scored'],
      ['never-written', 'scored'],
    ],
  );
});

test('deactivating (a new version with active=false) stops new scoring; reactivating scores only later calls', async (t) => {
  const { h, judge } = await setup(t);
  await publish(h, 'sums', monitorValue([judge]));
  await call(h, 'on-1', '1+1');
  await settled(h, 'sums');
  assert.equal((await feedback(h)).length, 1);

  await publish(h, 'sums', monitorValue([judge], { active: false }));
  await call(h, 'off-1', '2+2');
  await sleep(300);
  assert.equal((await feedback(h)).length, 1, 'nothing scored while inactive');
  assert.equal((await h.store.monitors.get(PROJECT, 'sums'))?.active, false);

  await publish(h, 'sums', monitorValue([judge], { active: true, description: 'again' }));
  await call(h, 'on-2', '3+3');
  await settled(h, 'sums');
  assert.deepEqual((await feedback(h)).map((f) => f.weave_ref).sort(), [
    `weave:///${PROJECT}/call/on-1`,
    `weave:///${PROJECT}/call/on-2`,
  ]);
});

test('short op names and the older call_filter shape are read; a monitor without matching calls writes nothing', async (t) => {
  const { h, judge } = await setup(t);
  const val = monitorValue([judge], { op_names: undefined, call_filter: { op_names: ['solve'], query: null } });
  delete val.op_names;
  await publish(h, 'legacy', val);
  await call(h, 'legacy-1', '5+5');
  await call(h, 'legacy-other', '5+5', `weave:///${PROJECT}/op/nope:abc`);
  await settled(h, 'legacy');
  assert.deepEqual(
    (await feedback(h)).map((f) => f.weave_ref),
    [`weave:///${PROJECT}/call/legacy-1`],
  );
});

test('a deleted monitor stops: its next scan marks it inactive and scores nothing', async (t) => {
  const { h, judge } = await setup(t);
  await publish(h, 'gone', monitorValue([judge], { name: 'gone' }));
  const deleted = await h.post('/obj/delete', { project_id: PROJECT, object_id: 'gone' });
  assert.equal(deleted.statusCode, 200, deleted.body);
  await call(h, 'late-1', '1+1');
  const deadline = Date.now() + 10_000;
  while ((await h.store.monitors.get(PROJECT, 'gone'))?.active !== false) {
    assert.ok(Date.now() < deadline, 'the monitor was not stopped');
    await sleep(20);
  }
  assert.deepEqual(await feedback(h), []);
  assert.deepEqual(await h.store.monitors.pairs(PROJECT, 'gone'), []);
});

test('a monitor of every op does not score the scorer and judge calls it writes', async (t) => {
  const { h, judge } = await setup(t);
  await publish(h, 'all', monitorValue([judge], { name: 'all', op_names: [] }));
  await call(h, 'any-1', '1+1', `weave:///${PROJECT}/op/first:abc`);
  await call(h, 'any-2', '2+2', `weave:///${PROJECT}/op/second:abc`);
  await settled(h, 'all');
  await sleep(200);
  await settled(h, 'all');
  assert.deepEqual((await feedback(h)).map((f) => f.weave_ref).sort(), [
    `weave:///${PROJECT}/call/any-1`,
    `weave:///${PROJECT}/call/any-2`,
  ]);
  assert.deepEqual(
    (await h.store.monitors.pairs(PROJECT, 'all')).map((p) => p.call_id),
    ['any-1', 'any-2'],
  );
});

test('calls that ended before the monitor was published are not scored, even behind a transaction open elsewhere', async (t) => {
  const { h, judge } = await setup(t);
  // PostgreSQL: an open transaction elsewhere holds the write-order horizon below 'before-1'
  let holder: pg.Client | null = null;
  if (h.config.databaseUrl) {
    holder = new pg.Client({ connectionString: h.config.databaseUrl });
    await holder.connect();
    t.after(() => holder?.end());
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
  }
  await call(h, 'before-1', '1+1');
  await publish(h, 'sums', monitorValue([judge]));
  await call(h, 'after-1', '2+2');
  if (holder) await holder.query('COMMIT');
  await settled(h, 'sums');
  assert.deepEqual(
    (await feedback(h)).map((f) => f.weave_ref),
    [`weave:///${PROJECT}/call/after-1`],
  );
});
