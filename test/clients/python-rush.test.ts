import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { basicAuthHeader, startServerProcess } from '../helpers/server-process.js';
import { ensureWeaveVenv } from './python-venv.js';
import { startInteractiveDemo } from './python-script.js';

/**
 * The official Python client through a rush (issue 35, docs/reliability-backpressure.md): while
 * 150 other clients hammer a node capped at 64 connections and 32 requests in flight, and 32 slow
 * uploads hold those places for the whole rush (so every other request meanwhile is refused), the
 * node answers every rushing request (200 or 503 with Retry-After, no reset), and the client's
 * retries deliver every call it logged during the rush: 0 lost.
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'rush_demo.py');
const CALLS = 60;
const RUSHERS = 150;
/** In-flight places: above the client's own concurrency, so it is refused by the rush, not by itself. */
const PLACES = 128;
/**
 * Within what the client's retries span: its object saves go through the generated client's own
 * retries ("Retrying request to /obj/create in 1 s", two of them); refused for longer, weave 0.54
 * gives the save up and `flush()` never returns (its limit, not the node's).
 */
const RUSH_MS = 1_000;

/** Keeps `RUSHERS` requests going, one connection each, until `stop()`; counts what came back. */
function rush(url: URL, key: string): { stop(): Promise<Map<string, number>> } {
  const seen = new Map<string, number>();
  let running = true;
  const count = (what: string): void => void seen.set(what, (seen.get(what) ?? 0) + 1);
  const one = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const body = JSON.stringify({
        start: {
          project_id: 'acme/rush',
          id: `rush-${i}-${Math.random()}`,
          trace_id: `rush-${i}`,
          op_name: 'rush',
          started_at: new Date().toISOString(),
          attributes: {},
          inputs: {},
        },
      });
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/call/start',
          agent: false,
          headers: {
            authorization: basicAuthHeader(key),
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 503) {
              assert.equal(res.headers['retry-after'], '1');
              count(/connections open/.test(text) ? '503 connections' : '503 busy');
            } else count(String(res.statusCode));
            resolve();
          });
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => {
        count(e.code ?? 'error');
        resolve();
      });
      req.end(body);
    });
  const loops = Array.from({ length: RUSHERS }, async (_, i) => {
    while (running) await one(i);
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return seen;
    },
  };
}

/** A `/call/start` whose body arrives a byte every 200 ms until `finish()`: it holds an in-flight place. */
function slowUpload(url: URL, key: string, id: string): { finish(): Promise<number> } {
  const body = JSON.stringify({
    start: {
      project_id: 'acme/rush',
      id,
      trace_id: id,
      op_name: 'slow',
      started_at: new Date().toISOString(),
      attributes: {},
      inputs: {},
    },
  });
  let status!: (code: number) => void;
  const answered = new Promise<number>((resolve) => (status = resolve));
  const req = http.request(
    {
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/call/start',
      agent: false,
      headers: {
        authorization: basicAuthHeader(key),
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    },
    (res) => {
      res.resume();
      res.on('end', () => status(res.statusCode ?? -1));
    },
  );
  req.on('error', () => status(-1));
  req.flushHeaders();
  let sent = 0;
  const timer = setInterval(() => req.write(body.slice(sent, ++sent)), 200);
  return {
    finish: () => {
      clearInterval(timer);
      req.end(body.slice(sent));
      return answered;
    },
  };
}

test('through a rush the Python client loses no call; every rushing request gets a status', async (t) => {
  const venv = await ensureWeaveVenv();
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(venv.reason);
    return t.skip(venv.reason);
  }
  const server = await startServerProcess(t, {
    env: {
      HEDDLE_MAX_IN_FLIGHT: String(PLACES),
      HEDDLE_MAX_CONNECTIONS: '256',
      HEDDLE_LOG_FORMAT: 'json',
    },
  });
  const key = await server.createKey('acme', { user: 'alice' });
  const demo = await startInteractiveDemo(t, venv.python, SCRIPT, server.url, key, ['acme/rush', String(CALLS)]);

  const holders = Array.from({ length: PLACES }, (_, i) => slowUpload(new URL(server.url), key, `slow-${i}`));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const rushing = rush(new URL(server.url), key);
  await new Promise((resolve) => setTimeout(resolve, 300));
  demo.child.stdin.write('go\n');
  const goAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, RUSH_MS));
  const seen = await rushing.stop();
  const rushEnd = Date.now();
  assert.deepEqual(await Promise.all(holders.map((h) => h.finish())), Array(PLACES).fill(200));
  assert.equal(await demo.exited, 0, demo.log());

  const output = server.output();
  // the client logs each retry (rush_demo.py for its batches, "Retrying request" for the rest)
  const pythonRefused = demo
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('RETRY ') || line.includes('Retrying request to')).length;
  process.stdout.write(
    `# rush: ${JSON.stringify(Object.fromEntries(seen))}; Python client retries: ${pythonRefused}\n`,
  );
  assert.deepEqual(
    [...seen.keys()].filter((k) => !['200', '503 connections', '503 busy'].includes(k)),
    [],
    'every rushing request got 200 or 503',
  );
  assert.ok((seen.get('503 connections') ?? 0) > 0 && (seen.get('503 busy') ?? 0) > 0, JSON.stringify([...seen]));
  process.stdout.write(
    `# Python client: ${demo
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('RETRY '))
      .slice(0, 3)
      .join(' | ')}\n`,
  );
  assert.ok(pythonRefused > 0, `the rush refused the Python client's requests\n${demo.log()}`);
  // the slow uploads held every in-flight place, so nothing else was accepted during the rush
  assert.equal(seen.get('200') ?? 0, 0, 'no rushing request got through while the places were held');
  assert.doesNotMatch(output, /"level":50/);

  const ids = (JSON.parse(demo.stdout().trim().split('\n').at(-1) ?? '{}') as { ids: string[] }).ids;
  assert.equal(ids.length, CALLS);
  const res = await fetch(`${server.url}/calls/stream_query`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify({
      project_id: 'acme/rush',
      filter: { call_ids: ids },
      columns: ['id', 'output', 'started_at'],
    }),
  });
  assert.equal(res.status, 200);
  const stored = (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; output: unknown; started_at: string });
  // the calls were made during the rush, when the node refused every request but the slow uploads
  const during = stored.filter((c) => Date.parse(c.started_at) >= goAt && Date.parse(c.started_at) < rushEnd);
  assert.equal(during.length, CALLS, 'the Python client logged its calls during the rush');
  assert.deepEqual(stored.map((c) => c.id).sort(), [...ids].sort(), demo.log());
  for (const call of stored) assert.notEqual(call.output, null, JSON.stringify(call));
});
