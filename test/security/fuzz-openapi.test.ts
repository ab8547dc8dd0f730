import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { basicAuth, buildTestApp, PROJECT, TEST_STORE, type TestApp } from '../helpers/app.js';
import { queryOperand } from './fuzz-query.js';
import { requestArb, type FuzzRequest, type Operation } from './fuzz-requests.js';
import type { Json, JsonSchema, SchemaContext } from './fuzz-values.js';
import { ROUTE_CASES, routeKey } from './route-cases.js';

/**
 * Issue 17: property-based fuzzing (fast-check) of every operation in `/openapi.json`. For each
 * operation an arbitrary of whole requests is built from its documented parameters and body schema
 * (fuzz-requests.ts): valid bodies with hostile leaves, wrong types, missing and extra members, huge
 * strings, deep nesting, NUL and lone surrogates, boundary numbers, bad JSON, wrong content types,
 * hostile calls-query expressions, odd credentials. The property: no answer is ≥ 500 and every
 * request is answered. Most requests go in process (`app.inject`); a slice goes over real sockets.
 * Afterwards the app still answers `/health`, and its memory after a GC is back under a bound.
 *
 * FUZZ_SEED (default 17) and FUZZ_RUNS (default 10,000 in process, plus FUZZ_SOCKET_RUNS=400 over
 * sockets) vary the run, FUZZ_ONLY (a regular expression over "METHOD /path") narrows it to some
 * operations to replay a failure, FUZZ_CONCURRENCY (default 4) how many operations are fuzzed at once; a
 * failure prints the seed, the path to replay and the shrunk request.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 17);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SOCKET_RUNS = Number(process.env.FUZZ_SOCKET_RUNS ?? 400);
/** Operations fuzzed at once. */
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 4);
/** A request that takes longer than this is reported (it should never happen; the default timeouts are minutes). */
const ANSWER_MS = 30_000;
/** After the run and a full GC, the heap may exceed its size after warm-up by at most this much. */
const HEAP_GROWTH_BOUND = 64 * 1024 * 1024;
/** … and the resident set may be at most this large. */
const RSS_BOUND = 1024 * 1024 * 1024;

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Operation['parameters']; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
};

function operations(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body: Operation['body'] = {};
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) body[type] = media.schema;
      ops.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], body });
    }
  }
  return ops;
}

/**
 * Routes left out of the document (`schema.hide`: GraphQL, aliases such as `/files/create` and
 * `/otel/v1/trace`): fuzzed too, by mutating their security test case's valid body (route-cases.ts).
 */
function hiddenOperations(h: TestApp, doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const route of h.app.routeTable) {
    if (route.autoHead) continue;
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{wildcard}');
    if (doc.paths[path]?.[route.method.toLowerCase()]) continue;
    const request = ROUTE_CASES[routeKey(route)]?.request?.(PROJECT);
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const parameters = names.map((name) => ({ in: 'path', name, required: true }));
    const body: Operation['body'] = {};
    if (request?.raw) body['multipart/form-data'] = undefined;
    else if (route.method !== 'GET' && route.method !== 'DELETE') {
      body['application/json'] = undefined;
      if (route.url.startsWith('/otel/')) body['application/x-protobuf'] = undefined;
    }
    ops.push({ method: route.method, path, parameters, body, example: request?.body as Json | undefined });
  }
  return ops;
}

interface Answer {
  status: number;
  body: string;
}

/**
 * An error answer says why: `{"reason": …}`, a `detail` (string or the 422 list), on GraphQL
 * `errors[0].message`, on MCP `error.message` (/work/shared/STYLE.md "Errors").
 */
function hasReason(answer: Answer, url: string): boolean {
  let body: { reason?: unknown; detail?: unknown; errors?: Array<{ message?: unknown }> };
  try {
    body = JSON.parse(answer.body) as typeof body;
  } catch {
    return false;
  }
  if (url.startsWith('/graphql') && typeof body.errors?.[0]?.message === 'string') return true;
  // MCP's transport refuses a message that is not JSON-RPC with a JSON-RPC error (routes/mcp.ts)
  if (url.startsWith('/mcp') && typeof (body as { error?: { message?: unknown } }).error?.message === 'string')
    return true;
  if (typeof body.reason === 'string' && body.reason !== '') return true;
  if (typeof body.detail === 'string' && body.detail !== '') return true;
  return Array.isArray(body.detail) && body.detail.length > 0;
}

async function inject(h: TestApp, r: FuzzRequest): Promise<Answer> {
  const res = await h.app.inject({
    method: r.method as 'POST',
    url: r.url,
    headers: r.headers,
    payload: r.payload,
    payloadAsStream: r.eventStream,
  });
  if (!r.eventStream) return { status: res.statusCode, body: res.body };
  // an event stream (200) is read up to its first chunk, then dropped; an error is read whole
  let body = '';
  for await (const chunk of res.stream()) {
    body += Buffer.from(chunk as Uint8Array).toString('utf8');
    if (res.statusCode === 200) break;
  }
  return { status: res.statusCode, body };
}

function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms: ${what}`)), ANSWER_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function describe(r: FuzzRequest): string {
  const payload = r.payload === undefined ? '' : String(r.payload);
  return `${r.method} ${r.url.slice(0, 200)} [${r.headers['content-type'] ?? '-'}] ${payload.slice(0, 300)}${payload.length > 300 ? `… (${payload.length} chars)` : ''}`;
}

/** Seeds what the requests name (acme/demo, call sec-call, object sec-obj, a table), so reads find data. */
async function seed(h: TestApp): Promise<void> {
  const rich = (key: string): unknown => {
    const entry = ROUTE_CASES[key]!;
    return entry.fuzzBody?.(PROJECT) ?? entry.request!(PROJECT).body;
  };
  for (const [url, key] of [
    ['/call/start', 'POST /call/start'],
    ['/call/end', 'POST /call/end'],
    ['/obj/create', 'POST /obj/create'],
    ['/table/create', 'POST /table/create'],
    ['/feedback/create', 'POST /feedback/create'],
    ['/cost/create', 'POST /cost/create'],
  ] as const) {
    const res = await h.post(url, rich(key));
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  }
}

function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

function sendOverSocket(port: number, agent: http.Agent, r: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // an explicit length: Node sends a DELETE or GET body without one, which reads as a second request
    const headers =
      r.payload === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.payload)) };
    const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.url, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (r.eventStream && res.statusCode === 200) res.destroy();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(r.payload);
  });
}

test(`fuzzing every /openapi.json operation (${TEST_STORE}): no answer ≥ 500, the process lives, memory is bounded`, async (t) => {
  // the server's error lines, so a 500 in the report says what the server hit (a race shows only once)
  const serverErrors: string[] = [];
  const logger = { level: 'error', stream: { write: (line: string) => void serverErrors.push(line) } };
  const h = await buildTestApp(t, {}, { logger });
  const docRes = await h.get('/openapi.json', null);
  assert.equal(docRes.statusCode, 200);
  const doc = docRes.json() as Doc;
  const only = process.env.FUZZ_ONLY === undefined ? null : new RegExp(process.env.FUZZ_ONLY);
  const ops = [...operations(doc), ...hiddenOperations(h, doc)].filter(
    (op) => !only || only.test(`${op.method} ${op.path}`),
  );
  assert.ok(only || ops.length >= 100, `${ops.length} operations`);
  const ctx: SchemaContext = {
    resolve: (ref) => doc.components?.schemas?.[ref.split('/').pop()!],
    overrides: { QueryOperand: queryOperand },
  };
  const creds = { owner: basicAuth(h.aliceKey), stranger: basicAuth(h.bobKey) };
  await seed(h);

  const perOp = Math.max(1, Math.ceil(RUNS / ops.length));
  const failures: string[] = [];
  let sent = 0;
  const statuses = new Map<number, number>();
  const property = (op: Operation) =>
    fc.asyncProperty(requestArb(op, ctx, creds), async (r) => {
      sent += 1;
      const answer = await withDeadline(inject(h, r), describe(r));
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      // the answer's reason goes into the failure, so a 500 says which error the server hit
      if (answer.status >= 500)
        throw new Error(
          `${answer.status}: ${answer.body.slice(0, 300)}; last server error: ${lastError(serverErrors)}`,
        );
      return answer.status < 400 || hasReason(answer, r.url);
    });

  // warm-up: one pass over every operation before the memory baseline
  for (const op of ops) await fc.check(property(op), { seed: SEED, numRuns: 2 });
  collectGarbage();
  const baseline = process.memoryUsage();

  const started = performance.now();
  const slowest: Array<[string, number]> = [];
  const fuzzOne = async (op: Operation, i: number): Promise<void> => {
    const opStarted = performance.now();
    const details = await fc.check(property(op), { seed: SEED + i, numRuns: perOp });
    if (details.failed) {
      const shrunk = details.counterexample?.[0];
      const cause =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : 'answered ≥ 500 or a 4xx without a reason';
      failures.push(
        `${op.method} ${op.path}: seed ${details.seed} path ${details.counterexamplePath}: ${cause}\n  ${shrunk ? describe(shrunk) : ''}`,
      );
    }
    slowest.push([`${op.method} ${op.path}`, Math.round(performance.now() - opStarted)]);
  };
  // a few operations at once, so the wait on the database overlaps (each operation's run stays seeded)
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ops.length) {
        const i = next++;
        await fuzzOne(ops[i]!, i);
      }
    }),
  );
  slowest.sort((a, b) => b[1] - a[1]);
  const injectMs = performance.now() - started;

  // a slice over real sockets: HTTP parsing, keep-alive and the body limit as a client sees them
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  assert.ok(address !== null && typeof address === 'object');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  t.after(() => agent.destroy());
  const anyRequest = fc.oneof(...ops.map((op) => requestArb(op, ctx, creds)));
  const socketRequests = fc.sample(anyRequest, { seed: SEED, numRuns: SOCKET_RUNS });
  for (const r of socketRequests) {
    sent += 1;
    try {
      const answer = await withDeadline(sendOverSocket(address.port, agent, r), describe(r));
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500 || answer.status === 0 || (answer.status >= 400 && !hasReason(answer, r.url)))
        failures.push(`socket: ${answer.status} ${answer.body.slice(0, 200)} — ${describe(r)}`);
    } catch (error) {
      failures.push(`socket: ${(error as Error).message} — ${describe(r)}`);
    }
  }

  const health = await h.get('/health', null);
  assert.equal(health.statusCode, 200, 'the app still answers /health');
  collectGarbage();
  const after = process.memoryUsage();
  const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MiB`;
  t.diagnostic(
    `${sent} requests (${ops.length} operations × ${perOp} in process in ${(injectMs / 1000).toFixed(1)} s, ` +
      `${SOCKET_RUNS} over sockets), seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
      `heap ${mib(baseline.heapUsed)} → ${mib(after.heapUsed)}, rss ${mib(baseline.rss)} → ${mib(after.rss)}; ` +
      `slowest operations (ms) ${JSON.stringify(slowest.slice(0, 8))}`,
  );
  assert.deepEqual(failures, [], `${failures.length} operations failed (seed ${SEED})`);
  assert.ok(sent >= RUNS, `${sent} requests sent`);
  assert.ok(
    after.heapUsed - baseline.heapUsed < HEAP_GROWTH_BOUND,
    `heap grew from ${mib(baseline.heapUsed)} to ${mib(after.heapUsed)}`,
  );
  assert.ok(after.rss < RSS_BOUND, `rss ${mib(after.rss)}`);
});

/** The message and stack head of the newest error line the server logged. */
function lastError(lines: string[]): string {
  const line = lines.at(-1);
  if (line === undefined) return 'none logged';
  const entry = JSON.parse(line) as { msg?: string; err?: { message?: string; stack?: string } };
  return (entry.err?.stack ?? entry.err?.message ?? entry.msg ?? line).split('\n').slice(0, 4).join(' | ');
}
