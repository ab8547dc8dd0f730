import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { testDatabase } from '../helpers/postgres.js';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import {
  emptyLedger,
  KINDS,
  newModelId,
  OTEL_PROJECT,
  PROJECT,
  send,
  startWriters,
  type Ledger,
  type Target,
} from './ingest-writers.js';

/**
 * Issue 17, durability: a `heddle serve` process (the compiled dist/) is killed with SIGKILL while
 * ten clients write calls (upsert batches), objects, files, OTLP spans and training logs; started
 * again on the same data, it holds every write it acknowledged with a 2xx, byte for byte, and the
 * data is consistent: a batch is there whole or not at all, counts agree with listings, SQLite's
 * integrity check passes, a client's retries of everything it sent store nothing twice, and ingest
 * resumes. Run on SQLite and on PostgreSQL.
 */

/** Acknowledged writes of each kind before the kill, so it lands mid-ingest for every kind. */
const ACKED_BEFORE_KILL = 15;

interface Client {
  post(url: string, body: unknown): Promise<{ status: number; text: string }>;
}

function client(server: ServerProcess, key: string): Client {
  return {
    post: async (url, body) => {
      const res = await fetch(`${server.url}${url}`, {
        method: 'POST',
        headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
  };
}

async function ok(c: Client, url: string, body: unknown): Promise<string> {
  const res = await c.post(url, body);
  assert.equal(res.status, 200, `${url}: ${res.text.slice(0, 500)}`);
  return res.text;
}

const jsonl = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Rows of a read-only SQL query on the server's database (the SQLite file, or PostgreSQL). */
type Rows = (sql: string) => Promise<Array<Record<string, unknown>>>;

function sqliteRows(dataDir: string): Rows {
  return async (sql) => {
    const db = new Database(path.join(dataDir, 'heddle.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  };
}

function postgresRows(url: string): Rows {
  return async (sql) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql)).rows as Array<Record<string, unknown>>;
    } finally {
      await c.end();
    }
  };
}

async function untilAcked(ledger: Ledger, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (KINDS.some((k) => ledger[k].filter((e) => e.acked).length < ACKED_BEFORE_KILL)) {
    if (Date.now() > deadline) {
      const counts = KINDS.map((k) => `${k} ${ledger[k].filter((e) => e.acked).length}`).join(', ');
      throw new Error(
        `too few writes acknowledged in ${ms} ms: ${counts}; ${ledger.unexpected.slice(0, 3).join('; ')}`,
      );
    }
    await sleep(20);
  }
}

/**
 * A client that got no answer retries: every call batch, object, file and span is sent again (the
 * acknowledged ones too). Calls merge by id and objects and files are content-addressed, so the
 * retries store nothing twice and answer the digests first acknowledged.
 */
async function retriesStoreNothingTwice(target: Target, ledger: Ledger, c: Client, callsBefore: number) {
  const retry = emptyLedger();
  const digests = new Map<string, string | undefined>();
  for (const kind of ['batches', 'objects', 'files', 'spans'] as const) {
    for (const entry of ledger[kind]) {
      const text = await send(target, entry.request!, retry);
      assert.equal(typeof text, 'string', `retry of ${entry.request!.url}: ${retry.unexpected.join('; ')}`);
      if (entry.acked && (kind === 'objects' || kind === 'files'))
        digests.set(entry.answer!, (JSON.parse(text!) as { digest: string }).digest);
    }
  }
  for (const [first, again] of digests) assert.equal(again, first, 'a retry answers the acknowledged digest');
  const ids = jsonl(await ok(c, '/calls/stream_query', { project_id: PROJECT, columns: ['id'] })).map((x) => x.id);
  const sent = new Set(ledger.batches.flatMap((b) => b.item.ids));
  assert.equal(ids.length, new Set(ids).size, 'each call stored once');
  assert.equal(ids.length, sent.size, 'every batch is stored after its retry');
  assert.ok(ids.length >= callsBefore);
  const stats = JSON.parse(await ok(c, '/calls/query_stats', { project_id: PROJECT })) as { count: number };
  assert.equal(stats.count, sent.size);
  const spanIds = jsonl(await ok(c, '/calls/stream_query', { project_id: OTEL_PROJECT, columns: ['id'] })).map(
    (x) => x.id,
  );
  assert.equal(spanIds.length, new Set(spanIds).size, 'a re-exported span is one call');
  assert.equal(spanIds.length, ledger.spans.length, 'every span is stored after its retry');
  const { objs } = JSON.parse(
    await ok(c, '/objs/query', { project_id: PROJECT, filter: { latest_only: false }, metadata_only: true }),
  ) as { objs: Array<{ object_id: string }> };
  const perObject = new Map<string, number>();
  for (const o of objs) perObject.set(o.object_id, (perObject.get(o.object_id) ?? 0) + 1);
  assert.equal(perObject.size, ledger.objects.length, 'every object is stored after its retry');
  assert.deepEqual(
    [...perObject.values()].filter((n) => n !== 1),
    [],
    'a retried object has one version',
  );
}

/** The scenario on one store; returns the data directory (still there until the test ends). */
async function killDuringIngest(
  t: TestContext,
  env: Record<string, string>,
  rows: (dataDir: string) => Rows,
): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-kill-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const serverEnv = { ...env, HEDDLE_LOG_LEVEL: 'info', HEDDLE_LOG_SUMMARY_SECONDS: '0' };
  const first = await startServerProcess(t, { dataDir, env: serverEnv });
  const key = await first.createKey('acme');
  const modelId = newModelId();
  // registers the model (docs/spec/training.md §4.5) before the writers start
  await ok(client(first, key), `/v1/preview/models/${modelId}/log`, { split: 'warm', trajectory_groups: [] });

  const ledger = emptyLedger();
  const writers = startWriters({ url: first.url, key, modelId }, ledger);
  await untilAcked(ledger, 60_000);
  process.kill(first.pid, 'SIGKILL');
  assert.equal(await first.stop(), null, 'killed by the signal');
  await writers.done;
  assert.deepEqual(ledger.unexpected, [], 'every answer before the kill was a 2xx');
  const inFlight = KINDS.map((k) => ledger[k].filter((e) => !e.acked).length).reduce((a, b) => a + b, 0);
  assert.ok(inFlight > 0, 'some writes were in flight when the process died');

  const second = await startServerProcess(t, { dataDir, env: serverEnv });
  const c = client(second, key);
  const lost: string[] = [];

  // calls: every acknowledged batch whole and ended; any other batch whole or absent
  const calls = jsonl(await ok(c, '/calls/stream_query', { project_id: PROJECT, columns: ['id', 'ended_at'] }));
  const ended = new Map(calls.map((call) => [call.id as string, call.ended_at !== null]));
  for (const batch of ledger.batches) {
    const present = batch.item.ids.filter((id) => ended.has(id));
    if (batch.acked) {
      lost.push(...batch.item.ids.filter((id) => ended.get(id) !== true).map((id) => `call ${id}`));
    } else if (present.length !== 0 && present.length !== batch.item.ids.length) {
      lost.push(`batch ${batch.item.ids[0]} partly written: ${present.length} of ${batch.item.ids.length}`);
    }
  }
  const stats = JSON.parse(await ok(c, '/calls/query_stats', { project_id: PROJECT })) as { count: number };
  assert.equal(stats.count, calls.length, 'query_stats counts what stream_query lists');

  // objects: the acknowledged version, same value
  for (const o of ledger.objects.filter((e) => e.acked)) {
    const res = await c.post('/obj/read', { project_id: PROJECT, object_id: o.item.objectId, digest: o.answer });
    if (res.status !== 200) lost.push(`object ${o.item.objectId}: ${res.status}`);
    else assert.deepEqual((JSON.parse(res.text) as { obj: { val: unknown } }).obj.val, o.item.val);
  }

  // files: same bytes under the acknowledged digest
  for (const f of ledger.files.filter((e) => e.acked)) {
    const res = await c.post('/file/content', { project_id: PROJECT, digest: f.answer });
    if (res.status !== 200) lost.push(`file ${f.item.name}: ${res.status}`);
    else assert.equal(res.text, f.item.content, `file ${f.item.name}`);
  }

  // OTLP: one call per acknowledged span, id = span id
  const spanCalls = new Set(
    jsonl(await ok(c, '/calls/stream_query', { project_id: OTEL_PROJECT, columns: ['id'] })).map((x) => x.id),
  );
  for (const s of ledger.spans.filter((e) => e.acked))
    if (!spanCalls.has(s.item.spanId)) lost.push(`span ${s.item.spanId}`);

  // training logs: one history row per acknowledged log
  const splits = new Set(
    (await rows(dataDir)(`SELECT split FROM training_log_history WHERE model_id = '${modelId}'`)).map((r) => r.split),
  );
  for (const l of ledger.logs.filter((e) => e.acked)) if (!splits.has(l.item.split)) lost.push(`log ${l.item.split}`);

  const acked = KINDS.map((k) => `${k} ${ledger[k].filter((e) => e.acked).length}`).join(', ');
  t.diagnostic(`acknowledged before SIGKILL: ${acked}; in flight ${inFlight}; lost ${lost.length}`);
  assert.deepEqual(lost, [], 'acknowledged writes lost');

  await retriesStoreNothingTwice({ url: second.url, key, modelId }, ledger, c, calls.length);

  // ingest resumes on the restarted process
  await ok(c, '/call/start', {
    start: {
      project_id: PROJECT,
      id: 'after-restart',
      trace_id: 'a',
      op_name: 'op',
      started_at: '2025-01-01T10:00:00Z',
      attributes: {},
      inputs: {},
    },
  });
  await ok(c, '/obj/create', { obj: { project_id: PROJECT, object_id: 'after-restart', val: { ok: true } } });
  await second.stop();
  return dataDir;
}

test(
  'SIGKILL during ingest on SQLite: no acknowledged write is lost, retries store nothing twice',
  { timeout: 180_000 },
  async (t) => {
    const dir = await killDuringIngest(t, {}, sqliteRows);
    const [check] = await sqliteRows(dir)('PRAGMA integrity_check');
    assert.deepEqual(check, { integrity_check: 'ok' });
  },
);

test(
  'SIGKILL during ingest on PostgreSQL: no acknowledged write is lost, retries store nothing twice',
  { timeout: 180_000 },
  async (t) => {
    const url = await testDatabase(t);
    if (url === null) return;
    await killDuringIngest(t, { HEDDLE_DATABASE_URL: url }, () => postgresRows(url));
  },
);
