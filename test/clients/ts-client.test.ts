/**
 * The official TypeScript client (npm `weave`, version pinned in package.json) against a real Heddle
 * process: nested ops, an op that throws, 50 concurrent calls. What it stored is then read back
 * through raw HTTP (`/calls/stream_query`, Basic auth): call tree, inputs, outputs, exception,
 * derived `summary.weave` (status, latency_ms, trace_name). Client behaviour: docs/ts-client.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';
import { describeRun, failedExchanges, postJson, runTraceDemo, streamAllCalls } from './helpers/ts-demo.js';
import { CONCURRENT_CALLS, FAILING_REASON, type RecordedExchange } from './ts/demo-output.js';

const PROJECT = 'acme/demo';
const OP_REF = /^weave:\/\/\/acme\/demo\/op\/([^:/]+):([A-Za-z0-9]{43})$/;
type Call = Record<string, any>;

test('official TypeScript client traces into Heddle', { timeout: 180_000 }, async (t) => {
  const server = await startServerProcess(t);
  const apiKey = await server.createKey('acme', { user: 'alice' });
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-ts-client-'));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  const run = await runTraceDemo(t, { serverUrl: server.url, apiKey, cwd, timeoutMs: 120_000 });
  const out = run.output;
  assert.ok(out, `the demo script wrote no output\n${describeRun(run)}`);
  // Endpoints the client needs but the server lacks (or rejects) are named here, with the request body.
  assert.deepEqual(
    failedExchanges(out.exchanges).map((e) => `${e.method} ${e.path} → ${e.status}`),
    [],
    describeRun(run),
  );
  assert.deepEqual(out.unhandledRejections, [], describeRun(run));
  assert.equal(out.failure, null, describeRun(run));
  assert.equal(out.finished, true, describeRun(run));
  assert.equal(run.code, 0, describeRun(run));
  assert.equal(run.errorsLog, null, 'the client wrote weaveErrors.log');

  const calls = await streamAllCalls(server.url, apiKey, PROJECT);
  const sent = sentCallWrites(out.exchanges);
  const opName = (call: Call): string => OP_REF.exec(String(call.op_name))?.[1] ?? `<not an op ref: ${call.op_name}>`;
  const only = (name: string): Call => {
    const found = calls.filter((c) => opName(c) === name);
    assert.equal(found.length, 1, `calls of op ${name}: ${found.length}`);
    return found[0]!;
  };

  await t.test('the client authenticated every request with Basic api:<key> and used only these endpoints', () => {
    assert.deepEqual(
      out.exchanges.filter((e) => e.auth !== 'api').map((e) => `${e.path}: ${e.auth}`),
      [],
    );
    const paths = new Set(out.exchanges.map((e) => `${e.method} ${e.path}`));
    assert.deepEqual([...paths].sort(), ['POST /call/upsert_batch', 'POST /file/create', 'POST /obj/create']);
  });

  await t.test('every call the client sent is stored once, started and ended', () => {
    assert.equal(calls.length, 3 + 1 + CONCURRENT_CALLS);
    assert.equal(new Set(calls.map((c) => c.id)).size, calls.length, 'duplicate call ids');
    assert.deepEqual(calls.map((c) => c.id).sort(), [...sent.starts.keys()].sort());
    assert.deepEqual([...sent.ends].sort(), [...sent.starts.keys()].sort());
    for (const c of calls) {
      assert.equal(c.project_id, PROJECT);
      assert.match(String(c.op_name), OP_REF);
      assert.equal(
        Date.parse(c.started_at),
        Date.parse(sent.starts.get(c.id)?.startedAt ?? ''),
        `started_at of ${opName(c)}`,
      );
      assert.notEqual(c.ended_at, null, `ended_at of ${opName(c)}`);
      assert.deepEqual(c.attributes.weave, { client_version: '0.11.1', source: 'js-sdk' });
    }
  });

  await t.test('op names are refs to the op objects /obj/create stored', () => {
    const digests = objCreateDigests(out.exchanges);
    for (const c of calls) {
      const [, name, digest] = OP_REF.exec(String(c.op_name)) ?? [];
      assert.equal(digest, digests.get(name!), `digest in op_name of ${name}`);
    }
  });

  await t.test('nested ops form one trace: parent → child → grandchild', () => {
    const parent = only('parent');
    const child = only('child');
    const grandchild = only('grandchild');
    assert.equal(parent.parent_id, null);
    assert.equal(child.parent_id, parent.id);
    assert.equal(grandchild.parent_id, child.id);
    assert.equal(parent.trace_id, sent.starts.get(parent.id)?.traceId);
    assert.equal(child.trace_id, parent.trace_id);
    assert.equal(grandchild.trace_id, parent.trace_id);
    assert.notEqual(parent.trace_id, parent.id);
    assert.deepEqual(
      calls
        .filter((c) => c.trace_id === parent.trace_id)
        .map(opName)
        .sort(),
      ['child', 'grandchild', 'parent'],
    );
  });

  await t.test('inputs and outputs of the nested ops', () => {
    assert.deepEqual(only('parent').inputs, { x: 5, label: 'nested' });
    assert.deepEqual(only('child').inputs, { arg0: 5 });
    assert.deepEqual(only('grandchild').inputs, { arg0: 5 });
    assert.equal(only('grandchild').output, 10);
    assert.equal(only('child').output, 11);
    assert.deepEqual(only('parent').output, { result: 11, label: 'nested' });
    assert.deepEqual(out.parentResult, { result: 11, label: 'nested' });
  });

  await t.test('the throwing op is stored with its exception and status error', () => {
    const failing = only('failing');
    assert.equal(out.thrownMessage, `boom: ${FAILING_REASON}`);
    assert.equal(failing.exception, `boom: ${FAILING_REASON}`);
    assert.deepEqual(failing.inputs, { arg0: FAILING_REASON });
    assert.equal(failing.output, null);
    assert.equal(failing.parent_id, null);
    assert.equal(failing.summary.weave.status, 'error');
  });

  await t.test('summary.weave: status, latency_ms and trace_name derived on read', () => {
    for (const c of calls) {
      const weave = c.summary?.weave;
      assert.deepEqual(Object.keys(c.summary).sort(), ['weave'], `summary keys of ${opName(c)}`);
      assert.equal(weave.status, opName(c) === 'failing' ? 'error' : 'success', `status of ${opName(c)}`);
      assert.ok(
        Number.isInteger(weave.latency_ms) && weave.latency_ms >= 0,
        `latency_ms of ${opName(c)}: ${weave.latency_ms}`,
      );
      // The client sends millisecond instants, so the derived latency is exact.
      assert.equal(weave.latency_ms, Date.parse(c.ended_at) - Date.parse(c.started_at), `latency_ms of ${opName(c)}`);
      assert.equal(weave.trace_name, opName(c));
      if (opName(c) !== 'failing') assert.equal(c.exception, null);
    }
  });

  await t.test(`${CONCURRENT_CALLS} concurrent calls: separate traces, inputs and outputs paired`, () => {
    const squares = calls.filter((c) => opName(c) === 'square');
    assert.equal(squares.length, CONCURRENT_CALLS);
    assert.equal(new Set(squares.map((c) => c.trace_id)).size, CONCURRENT_CALLS, 'each root call has its own trace');
    for (const c of squares) {
      assert.equal(c.parent_id, null);
      assert.equal(c.output, c.inputs.arg0 * c.inputs.arg0, `output for input ${c.inputs.arg0}`);
    }
    const inputs = squares.map((c) => c.inputs.arg0 as number).sort((a, b) => a - b);
    assert.deepEqual(
      inputs,
      Array.from({ length: CONCURRENT_CALLS }, (_, i) => i),
    );
    assert.deepEqual(
      out.squares,
      Array.from({ length: CONCURRENT_CALLS }, (_, i) => i * i),
    );
  });

  await t.test("the ops' source files are stored under the digests the client computed", async () => {
    const parentFile = opFileDigests(out.exchanges).get('parent');
    assert.ok(parentFile, 'no obj.py digest for op parent');
    const created = out.exchanges
      .filter((e) => e.path === '/file/create')
      .map((e) => (JSON.parse(e.response ?? '{}') as { digest?: string }).digest);
    assert.ok(
      created.includes(parentFile),
      `/file/create answered ${created.join(', ')}; the client put ${parentFile} in the op`,
    );
    const res = await postJson(server.url, apiKey, '/file/content', { project_id: PROJECT, digest: parentFile });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    // tsx (esbuild) compiles the script, so the source is its output: `async function parent2(x,label){…}`.
    assert.match(body, /^async function parent\w*\(x,\s*label\)\s*\{[^]*await child\(x\)/);
  });

  const exitCode = await server.stop();
  assert.equal(exitCode, 0, `server exit code\n${server.output().slice(-2000)}`);
});

/** Starts (id → trace id, started_at) and ended ids the client sent through /call/upsert_batch. */
function sentCallWrites(exchanges: RecordedExchange[]): {
  starts: Map<string, { traceId: string; startedAt: string }>;
  ends: string[];
} {
  const starts = new Map<string, { traceId: string; startedAt: string }>();
  const ends: string[] = [];
  for (const e of exchanges.filter((x) => x.path === '/call/upsert_batch')) {
    for (const item of (e.request as { batch: Array<{ mode: string; req: any }> }).batch) {
      if (item.mode === 'start')
        starts.set(item.req.start.id, { traceId: item.req.start.trace_id, startedAt: item.req.start.started_at });
      else if (item.mode === 'end') ends.push(item.req.end.id);
      else assert.fail(`unexpected batch mode ${item.mode}`);
    }
  }
  return { starts, ends };
}

/** object_id → digest answered by /obj/create. */
function objCreateDigests(exchanges: RecordedExchange[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const e of exchanges.filter((x) => x.path === '/obj/create' && x.status === 200)) {
    const res = JSON.parse(e.response ?? '{}') as { digest?: string };
    digests.set((e.request as { obj: { object_id: string } }).obj.object_id, String(res.digest));
  }
  return digests;
}

/** op object_id → the digest of its `obj.py` file, as the client computed it and put in the op's val. */
function opFileDigests(exchanges: RecordedExchange[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const e of exchanges.filter((x) => x.path === '/obj/create')) {
    const obj = (e.request as { obj: { object_id: string; val: { files?: Record<string, string> } } }).obj;
    if (obj.val.files?.['obj.py']) digests.set(obj.object_id, obj.val.files['obj.py']);
  }
  return digests;
}
