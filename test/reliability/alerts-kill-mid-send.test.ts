import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { testDatabase } from '../helpers/postgres.js';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';

/**
 * Alerts (docs/alerts.md "On several nodes"): a `heddle serve` process (dist/) is killed with
 * SIGKILL while its webhook request is in flight (the receiver has it and has not answered); a
 * node started again on the same data sends the notification again once the lease expires, with
 * the same idempotency key, and the alert fired once: one event, one distinct notification. Run on
 * SQLite and on PostgreSQL.
 */

const PROJECT = 'acme/alerting';
const ENV = {
  HEDDLE_ALERTS_POLL_MS: '20',
  HEDDLE_ALERTS_INTERVAL_SECONDS: '0.05',
  HEDDLE_ALERTS_LEASE_SECONDS: '1',
  HEDDLE_ALERTS_RETRY_SECONDS: '0.05',
};

interface Hook {
  url: string;
  keys: string[];
  /** Resolves when the first request arrives (it is never answered). */
  first: Promise<void>;
}

/** A receiver that holds its first request open and answers 200 to every later one. */
async function receiver(t: TestContext): Promise<Hook> {
  const keys: string[] = [];
  let arrived!: () => void;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      keys.push(String(req.headers['idempotency-key']));
      if (keys.length === 1) arrived();
      else res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, keys, first };
}

async function post(server: ServerProcess, key: string, url: string, body: unknown): Promise<void> {
  const res = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.text());
}

async function history(server: ServerProcess, key: string): Promise<any[]> {
  const res = await fetch(`${server.url}/projects/${PROJECT}/alerts/errors/history`, {
    headers: { authorization: basicAuthHeader(key) },
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { events: any[] }).events;
}

async function killMidSend(t: TestContext, env: Record<string, string>): Promise<void> {
  const hook = await receiver(t);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-alerts-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServerProcess(t, { dataDir, env: { ...ENV, ...env } });
  const key = await first.createKey('acme', { user: 'alice' });
  await post(first, key, '/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'errors',
      builtin_object_class: 'AlertSpec',
      val: { spec: { metric: 'error_rate', threshold: 0.5, window: { calls: 2 }, webhooks: [{ url: hook.url }] } },
    },
  });
  for (const id of ['a', 'b']) {
    const at = id === 'a' ? '2025-01-01T10:00:00Z' : '2025-01-01T10:00:01Z';
    await post(first, key, '/call/start', {
      start: { project_id: PROJECT, id, trace_id: id, op_name: 'chat', started_at: at, attributes: {}, inputs: {} },
    });
    await post(first, key, '/call/end', {
      end: { project_id: PROJECT, id, ended_at: at, summary: {}, exception: 'RuntimeError: down' },
    });
  }
  await hook.first;
  process.kill(first.pid, 'SIGKILL');
  assert.equal(await first.stop(0), null, 'the first node was killed');

  const second = await startServerProcess(t, { dataDir, env: { ...ENV, ...env } });
  const events = await until(
    'the notification sent again and marked sent',
    async () => {
      const found = await history(second, key);
      return found[0]?.deliveries[0]?.status === 'sent' ? found : null;
    },
    60_000,
  );
  assert.equal(events.length, 1, 'the alert fired once');
  assert.equal(events[0].state, 'firing');
  assert.equal(events[0].deliveries[0].attempts, 2, second.output().slice(-2000));
  assert.equal(hook.keys.length, 2);
  assert.deepEqual(new Set(hook.keys), new Set([`${events[0].event_id}:0`]), 'both attempts carry one key');
}

test(
  'SIGKILL mid-send on SQLite: the notification is sent again with its key, the alert fires once',
  { timeout: 120_000 },
  (t) => killMidSend(t, {}),
);

test(
  'SIGKILL mid-send on PostgreSQL: the notification is sent again with its key, the alert fires once',
  { timeout: 120_000 },
  async (t) => {
    const url = await testDatabase(t);
    if (url === null) return;
    await killMidSend(t, { HEDDLE_DATABASE_URL: url });
  },
);
