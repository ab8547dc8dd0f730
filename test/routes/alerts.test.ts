import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { until } from '../helpers/until.js';

/**
 * Alerts (docs/alerts.md): an AlertSpec object fires and resolves on the calls written, each state
 * change is in the history and posted to a loopback receiver (generic JSON and Slack bodies) with
 * an idempotency key, a failing receiver is retried with the same key, and a muted alert notifies
 * no one.
 */

const FAST = {
  HEDDLE_ALERTS_POLL_MS: '20',
  HEDDLE_ALERTS_INTERVAL_SECONDS: '0.05',
  HEDDLE_ALERTS_RETRY_SECONDS: '0.05',
};
const ALERTS = `/projects/${PROJECT}/alerts`;

interface Received {
  path: string;
  key: string;
  body: any;
}

/** A webhook receiver on loopback that answers 500 to its first `failures` requests. */
async function receiver(t: TestContext, failures = 0) {
  const received: Received[] = [];
  let failing = failures;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '', key: String(req.headers['idempotency-key']), body: JSON.parse(text) });
      res.statusCode = failing-- > 0 ? 500 : 200;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

let clock = Date.parse('2025-01-01T10:00:00Z');

/** `n` finished calls of op `chat`, each later than the last, failing or not. */
async function calls(h: TestApp, n: number, failing: boolean): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const id = `c-${clock}`;
    const started = new Date(clock).toISOString();
    clock += 1000;
    const ended = new Date(clock - 500).toISOString();
    assert.equal((await h.post('/call/start', makeStart({ id, started_at: started }))).statusCode, 200);
    const end = makeEnd(id, { ended_at: ended, ...(failing ? { exception: 'RuntimeError: down' } : {}) });
    assert.equal((await h.post('/call/end', end)).statusCode, 200);
  }
}

async function publish(h: TestApp, name: string, spec: Record<string, unknown>, opScope: string[] | null = null) {
  const res = await h.post('/obj/create', {
    obj: { project_id: PROJECT, object_id: name, builtin_object_class: 'AlertSpec', val: { op_scope: opScope, spec } },
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function history(h: TestApp, name: string): Promise<any> {
  const res = await h.get(`${ALERTS}/${name}/history`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const errorRate = (url: string) => ({
  metric: 'error_rate',
  comparison: 'gt',
  threshold: 0.5,
  window: { calls: 4 },
  min_calls: 4,
  webhooks: [
    { url: `${url}/json`, format: 'json' },
    { url: `${url}/slack`, format: 'slack' },
  ],
});

test('an alert fires once, resolves, and both changes reach the webhooks with idempotency keys', async (t) => {
  const h = await buildTestApp(t, FAST);
  const hook = await receiver(t);
  await publish(h, 'errors', errorRate(hook.url));
  await calls(h, 4, true);
  await until('the firing notifications', async () => (hook.received.length >= 2 ? true : null));
  const firing = hook.received.find((r) => r.path === '/json')!;
  assert.equal(firing.body.type, 'alert.firing');
  assert.equal(firing.body.alert_id, 'errors');
  assert.equal(firing.body.value, 1);
  const slack = hook.received.find((r) => r.path === '/slack')!;
  assert.match(slack.body.text, /errors.*firing.*error_rate = 1/);
  assert.equal(slack.body.blocks[0].type, 'section');
  assert.deepEqual(hook.received.map((r) => r.key).sort(), [`${firing.body.event_id}:0`, `${firing.body.event_id}:1`]);

  // evaluations go on while it breaches; none fires again
  const evaluatedAt = (await h.get(ALERTS)).json().alerts[0].evaluated_at;
  await until('two more evaluations', async () => {
    const now = (await h.get(ALERTS)).json().alerts[0].evaluated_at;
    return now > evaluatedAt ? now : null;
  });
  await calls(h, 1, true);
  await until('an evaluation after the new call', async () => {
    const [alert] = (await h.get(ALERTS)).json().alerts;
    return alert.evaluated_at > evaluatedAt && alert.state === 'firing' ? alert : null;
  });
  assert.equal(hook.received.length, 2, 'a breach that goes on fires once');

  await calls(h, 4, false);
  await until('the resolved notifications', async () => (hook.received.length >= 4 ? true : null));
  assert.deepEqual(
    hook.received
      .slice(2)
      .map((r) => r.path)
      .sort(),
    ['/json', '/slack'],
  );
  assert.equal(hook.received.find((r, i) => i >= 2 && r.path === '/json')!.body.type, 'alert.resolved');
  const listed = (await h.get(ALERTS)).json().alerts;
  // resolved as soon as the window held few enough failures (its value depends on when it was read)
  assert.deepEqual(
    listed.map((a: any) => [a.alert_id, a.active, a.state, a.value <= 0.5, a.spec_error]),
    [['errors', true, 'ok', true, null]],
  );
  // the receiver has answered; the outbox rows are marked sent right after
  const events = await until('every delivery marked sent', async () => {
    const found = (await history(h, 'errors')).events as any[];
    return found.every((e) => e.deliveries.every((d: any) => d.status === 'sent')) ? found : null;
  });
  assert.deepEqual(
    events.map((e: any) => e.state),
    ['resolved', 'firing'],
  );
  for (const e of events)
    assert.deepEqual(
      e.deliveries.map((d: any) => [d.status, d.attempts]),
      [
        ['sent', 1],
        ['sent', 1],
      ],
    );
});

test('a failing receiver is retried with the same idempotency key until it answers', async (t) => {
  const h = await buildTestApp(t, FAST);
  const hook = await receiver(t, 2);
  await publish(h, 'errors', { ...errorRate(hook.url), webhooks: [{ url: `${hook.url}/json` }] });
  await calls(h, 4, true);
  await until('the delivery', async () => {
    const [e] = (await history(h, 'errors')).events;
    return e?.deliveries[0]?.status === 'sent' ? e : null;
  });
  assert.equal(hook.received.length, 3);
  assert.equal(new Set(hook.received.map((r) => r.key)).size, 1, 'every attempt carries the same key');
  const [event] = (await history(h, 'errors')).events;
  assert.equal(event.deliveries[0].attempts, 3);
  assert.equal(event.deliveries[0].idempotency_key, hook.received[0]!.key);
});

test('a muted alert records its changes and notifies no one; a bad spec says why', async (t) => {
  const h = await buildTestApp(t, FAST);
  const hook = await receiver(t);
  await publish(h, 'errors', errorRate(hook.url));
  const mute = await h.app.inject({
    method: 'PUT',
    url: `${ALERTS}/errors/mute`,
    headers: {
      authorization: `Basic ${Buffer.from(`api:${h.aliceKey}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    payload: JSON.stringify({ muted: true }),
  });
  assert.equal(mute.statusCode, 200, mute.body);
  await calls(h, 4, true);
  const [event] = (await until('the firing event', async () => {
    const { events } = await history(h, 'errors');
    return events.length > 0 ? events : null;
  })) as any[];
  assert.equal(event.state, 'firing');
  assert.deepEqual(event.deliveries, []);
  assert.equal(hook.received.length, 0);

  await publish(h, 'broken', { metric: 'vibes', threshold: 1, window: { calls: 3 } });
  const broken = (await h.get(ALERTS)).json().alerts.find((a: any) => a.alert_id === 'broken');
  assert.match(broken.spec_error, /spec.metric must be one of/);
  assert.equal((await h.get(`${ALERTS}/nope/history`)).statusCode, 404);

  // deleting the AlertSpec stops the alert
  assert.equal((await h.post('/obj/delete', { project_id: PROJECT, object_id: 'errors' })).statusCode, 200);
  await until('the deleted alert inactive', async () => {
    const alert = (await h.get(ALERTS)).json().alerts.find((a: any) => a.alert_id === 'errors');
    return alert.active === false ? alert : null;
  });
  // another entity's alerts are refused
  assert.equal((await h.get(ALERTS, h.bobKey)).statusCode, 403);
});

test('a timed mute notifies no one until its end, then the alert notifies again; bad ends are 400', async (t) => {
  const h = await buildTestApp(t, FAST);
  const hook = await receiver(t);
  await publish(h, 'errors', errorRate(hook.url));
  const mute = (body: unknown) =>
    h.app.inject({
      method: 'PUT',
      url: `${ALERTS}/errors/mute`,
      headers: {
        authorization: `Basic ${Buffer.from(`api:${h.aliceKey}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });
  const inAnHour = new Date(Date.now() + 3600_000).toISOString();
  for (const [body, reason] of [
    [{ muted: true, until: '2020-01-01T00:00:00Z' }, /until must be in the future/],
    [{ muted: true, until: 'soon' }, /until must be an ISO 8601 date-time/],
    [{ muted: false, until: inAnHour }, /until applies only to muting/],
  ] as const) {
    const res = await mute(body);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, reason);
  }
  const muted = await mute({ muted: true, until: inAnHour });
  assert.equal(muted.statusCode, 200, muted.body);
  assert.equal(Date.parse(muted.json().muted_until), Date.parse(inAnHour));
  const listed = () => (h.get(ALERTS) as Promise<any>).then((r) => r.json().alerts[0]);
  assert.deepEqual([(await listed()).muted, Date.parse((await listed()).muted_until)], [true, Date.parse(inAnHour)]);
  await calls(h, 4, true);
  const [fired] = (await until('the firing event', async () => {
    const { events } = await history(h, 'errors');
    return events.length > 0 ? events : null;
  })) as any[];
  assert.deepEqual([fired.state, fired.deliveries, hook.received.length], ['firing', [], 0]);

  // a mute that ends a second from now: once the list says it is over, the resolution is sent
  assert.equal((await mute({ muted: true, until: new Date(Date.now() + 1000).toISOString() })).statusCode, 200);
  await until('the mute over', async () => ((await listed()).muted === false ? true : null));
  assert.equal((await listed()).muted_until, null);
  await calls(h, 4, false);
  await until('the resolution sent', async () => (hook.received.length === 2 ? true : null));
  assert.deepEqual(hook.received.map((r) => r.path).sort(), ['/json', '/slack']);
  assert.equal(hook.received.find((r) => r.path === '/json')?.body.state, 'resolved');
});

test('the list shows each alert as published and when it last fired, kept after it resolves', async (t) => {
  const h = await buildTestApp(t, FAST);
  const hook = await receiver(t);
  const spec = { ...errorRate(hook.url), query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'x' }] } } };
  await publish(h, 'errors', errorRate(hook.url), [`weave:///${PROJECT}/op/chat:*`]);
  const [before] = (await h.get(ALERTS)).json().alerts;
  assert.equal(before.last_fired_at, null);
  assert.deepEqual(before.op_scope, [`weave:///${PROJECT}/op/chat:*`]);
  assert.deepEqual(before.spec, errorRate(hook.url));
  // a new version replaces what the list shows
  await publish(h, 'errors', spec);
  const [republished] = (await h.get(ALERTS)).json().alerts;
  assert.deepEqual([republished.op_scope, republished.spec], [[], spec]);
  await publish(h, 'errors', errorRate(hook.url));
  await calls(h, 4, true);
  const firing = await until('the firing state', async () => {
    const [a] = (await h.get(ALERTS)).json().alerts;
    return a.state === 'firing' ? a : null;
  });
  const [fired] = (await history(h, 'errors')).events;
  assert.equal(firing.last_fired_at, fired.at);
  await calls(h, 4, false);
  const resolved = await until('the resolved state', async () => {
    const [a] = (await h.get(ALERTS)).json().alerts;
    return a.state === 'ok' ? a : null;
  });
  assert.equal(resolved.last_fired_at, fired.at);
  assert.equal((await history(h, 'errors')).alert.last_fired_at, fired.at);
});
