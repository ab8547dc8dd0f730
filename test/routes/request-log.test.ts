import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { AuthService } from '../../src/services/auth-service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { humanLine, loggerOptions } from '../../src/plugins/log-format.js';
import { basicAuth, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** What the server logs per request and per period (plugins/request-log.ts), read from pino's JSON lines. */

interface Logged {
  app: FastifyInstance;
  key: string;
  lines: Array<Record<string, any>>;
}

async function appWithLog(t: TestContext, env: Record<string, string>): Promise<Logged> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-log-'));
  const config = loadConfig({ HEDDLE_DATA_DIR: dir, ...env });
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  const lines: Array<Record<string, any>> = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, any>) };
  const app = await buildApp({ config, store, logger: { level: config.logLevel, stream }, trainer: null });
  app.get('/test/boom', { config: { public: true } }, async () => {
    throw new Error('kaboom');
  });
  app.get('/test/slow', { config: { public: true } }, async () => {
    await new Promise((r) => setTimeout(r, 400));
    return { ok: true };
  });
  await app.ready();
  t.after(async () => {
    await app.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { key } = await new AuthService(store).createKey({ entity: 'acme', username: 'alice' });
  lines.length = 0;
  return { app, key, lines };
}

const post = (h: Logged, url: string, body: unknown, key: string | null = h.key) =>
  h.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: basicAuth(key) } : {}) },
    payload: JSON.stringify(body),
  });

const requestLines = (h: Logged) => h.lines.filter((l) => l.msg !== undefined && 'status' in l);

test('at info: nothing for successful or rejected requests; one error line for a 5xx; one warn line when slow', async (t) => {
  const h = await appWithLog(t, {
    HEDDLE_LOG_LEVEL: 'info',
    HEDDLE_LOG_SLOW_MS: '300',
    HEDDLE_LOG_SUMMARY_SECONDS: '0',
  });
  assert.equal((await post(h, '/call/start', makeStart({ id: 'a' }))).statusCode, 200);
  assert.equal((await post(h, '/calls/stream_query', { project_id: PROJECT })).statusCode, 200);
  assert.equal((await post(h, '/calls/stream_query', { project_id: PROJECT }, null)).statusCode, 401);
  assert.equal((await post(h, '/calls/stream_query', { project_id: 'other/x' })).statusCode, 403);
  assert.equal((await post(h, '/calls/stream_query', { project_id: PROJECT, limit: 'x' })).statusCode, 422);
  assert.equal(h.lines.length, 0, `no line for ordinary requests: ${JSON.stringify(h.lines)}`);

  assert.equal((await h.app.inject({ method: 'GET', url: '/test/boom' })).statusCode, 500);
  assert.equal(h.lines.length, 1, JSON.stringify(h.lines));
  const [failed] = h.lines;
  assert.ok(failed !== undefined);
  assert.equal(failed.level, 50);
  assert.equal(failed.msg, 'request failed');
  assert.deepEqual([failed.method, failed.url, failed.status], ['GET', '/test/boom', 500]);
  assert.equal(failed.err.message, 'kaboom');
  assert.ok(typeof failed.ms === 'number');

  h.lines.length = 0;
  assert.equal((await h.app.inject({ method: 'GET', url: '/traces/test/slow' })).statusCode, 200);
  assert.equal(h.lines.length, 1);
  assert.equal(h.lines[0]!.level, 40);
  assert.equal(h.lines[0]!.msg, 'slow request');
  assert.equal(h.lines[0]!.url, '/traces/test/slow', 'the URL as the client sent it');
  assert.ok(h.lines[0]!.ms >= 300);
});

test('at debug: exactly one line per request', async (t) => {
  const h = await appWithLog(t, { HEDDLE_LOG_LEVEL: 'debug', HEDDLE_LOG_SUMMARY_SECONDS: '0' });
  await post(h, '/call/start', makeStart({ id: 'a' }));
  await post(h, '/calls/stream_query', { project_id: PROJECT }, null);
  const lines = requestLines(h).filter((l) => l.method !== undefined);
  assert.deepEqual(
    lines.map((l) => [l.msg, l.url, l.status]),
    [
      ['request', '/call/start', 200],
      ['request rejected', '/calls/stream_query', 401],
    ],
  );
});

test('a periodic summary counts requests, calls stored and errors, and stays quiet when idle', async (t) => {
  const h = await appWithLog(t, { HEDDLE_LOG_LEVEL: 'info', HEDDLE_LOG_SUMMARY_SECONDS: '0.3' });
  await post(h, '/call/upsert_batch', {
    batch: [
      { mode: 'start', req: makeStart({ id: 'b1' }) },
      { mode: 'start', req: makeStart({ id: 'b2' }) },
      { mode: 'end', req: makeEnd('b1') },
    ],
  });
  await post(h, '/calls/stream_query', { project_id: PROJECT }, null);
  await new Promise((r) => setTimeout(r, 450));
  const summaries = h.lines.filter((l) => l.summary_seconds !== undefined);
  assert.equal(summaries.length, 1, JSON.stringify(h.lines));
  const [s] = summaries;
  assert.ok(s !== undefined);
  assert.equal(s.level, 30);
  assert.deepEqual([s.requests, s.calls_stored, s.server_errors, s.client_errors], [2, 2, 0, { 401: 1 }]);
  assert.match(s.msg, /^last 0\.3s: 2 requests, 2 calls stored, 0 server errors, 1 client errors \(401: 1\)/);
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(h.lines.filter((l) => l.summary_seconds !== undefined).length, 1, 'nothing happened: no line');
});

test('human lines on a terminal, JSON otherwise', () => {
  const line = humanLine(
    JSON.stringify({
      level: 40,
      time: Date.UTC(2025, 0, 1, 12, 0, 1, 234),
      pid: 1,
      hostname: 'h',
      reqId: 'req-1',
      msg: 'slow request',
      method: 'POST',
      url: '/calls/stream_query',
      status: 200,
      ms: 2100,
    }),
  );
  assert.equal(line, '12:00:01.234 WARN  slow request method=POST url=/calls/stream_query status=200 ms=2100\n');
  const err = humanLine(
    JSON.stringify({
      level: 50,
      time: 0,
      msg: 'request failed',
      err: { type: 'Error', message: 'kaboom', stack: 'Error: kaboom\n    at f (/x.ts:1:2)\n    at g' },
    }),
  );
  assert.equal(err.split('\n').length, 2, 'one line');
  assert.match(err, /ERROR request failed err="Error: kaboom \(at f \(\/x\.ts:1:2\)\)"/);
  const tty = { isTTY: true, write: () => true } as unknown as NodeJS.WriteStream;
  const pipe = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;
  assert.ok('stream' in loggerOptions('info', 'auto', tty));
  assert.deepEqual(loggerOptions('info', 'auto', pipe), { level: 'info' });
  assert.deepEqual(loggerOptions('info', 'json', tty), { level: 'info' });
  assert.ok('stream' in loggerOptions('info', 'pretty', pipe));
});
