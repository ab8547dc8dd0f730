/**
 * Agent spans at scale through the API (issue 34). Starts the compiled server (`node dist/main.js
 * serve`; build it with `npm run build:server`) on a fresh store per BENCH_AGENT_STORES (sqlite,
 * postgres when test/helpers/postgres-server.ts can have it), then:
 *
 * 1. **Ingest rate**: the same BENCH_AGENT_RATE_SPANS (20,000) GenAI spans as OTLP protobuf to
 *    `/otel/v1/traces` and to `/agents/otel/v1/traces` (each into a project of its own), 500 spans a
 *    request, 8 in flight; spans/s of each and their ratio (goal: agents ≥ 50 % of otel).
 * 2. **Load**: BENCH_AGENT_SPANS (100,000; the figure is 1,000,000) spans of
 *    conversations of 10 spans (an `invoke_agent` root with a conversation id and the user's
 *    message, chat spans with a model, tokens and an answer, tool spans) through
 *    `/agents/otel/v1/traces`, plus one conversation whose one turn holds 1,000 spans.
 * 3. **Reads** right after, median and p95 of BENCH_AGENT_RUNS (7) after a warm-up, as the agents
 *    pages send them: `/agents/query`, `/agents/conversations/chat` of a conversation, the
 *    1,000-span turn by `/agents/traces/chat`, `/agents/search`, and `/agents/spans/query` grouped
 *    by agent. Goal: each median ≤ 100 ms.
 *
 * Writes bench/results/agents-<stamp>.{md,json}. BENCH_AGENT_PROFILE_DIR: CPU profiles of the server there.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { attr, exportReq, toProtobuf, type Attr } from '../test/routes/otel-fixture.js';
import { LoadClient, quantile, runPool, timed } from './lib/load.js';
import { startHeddle, type ChildServer } from './lib/processes.js';
import { freshPostgresDatabase } from './lib/bench-database.js';
import { resultsMarkdown, writeResults } from './lib/report.js';

const SPANS = Number(process.env.BENCH_AGENT_SPANS ?? 100_000);
const RATE_SPANS = Number(process.env.BENCH_AGENT_RATE_SPANS ?? 20_000);
const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 7);
const STORES = (process.env.BENCH_AGENT_STORES ?? 'sqlite,postgres').split(',').filter(Boolean);
const PER_CONVERSATION = 10;
const PER_REQUEST = 50; // conversations, so 500 spans a request
const IN_FLIGHT = 8;
const BIG_TURN_SPANS = 1_000;
const T0_MS = Date.UTC(2026, 11, 1);

const log = (line: string): void => void process.stdout.write(`# ${line}\n`);
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const ns = (ms: number): string => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Attr[];
  status?: Record<string, unknown>;
}

const otlp = (s: Span): Record<string, unknown> => ({
  traceId: s.traceId,
  spanId: s.spanId,
  ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
  name: s.name,
  kind: 1,
  startTimeUnixNano: ns(s.startMs),
  endTimeUnixNano: ns(s.endMs),
  attributes: s.attributes,
  status: s.status ?? {},
});

/** Conversation `c` of a run (`salt` keeps the ids of different projects apart). */
function conversation(c: number, salt: number): Span[] {
  const traceId = hex(salt, 8) + hex(c + 1, 24);
  const root = hex(salt, 4) + hex(c * PER_CONVERSATION + 1, 12);
  const t0 = T0_MS + c * 10_000;
  const agent = `agent-${c % 20}`;
  return Array.from({ length: PER_CONVERSATION }, (_, i): Span => {
    const spanId = hex(salt, 4) + hex(c * PER_CONVERSATION + i + 1, 12);
    const base = { traceId, spanId, startMs: t0 + i * 100, endMs: t0 + i * 100 + 80 };
    if (i === 0)
      return {
        ...base,
        endMs: t0 + PER_CONVERSATION * 100,
        name: `invoke_agent ${agent}`,
        attributes: [
          attr('gen_ai.operation.name', 'invoke_agent'),
          attr('gen_ai.agent.name', agent),
          attr('gen_ai.agent.version', `1.${c % 3}`),
          attr('gen_ai.conversation.id', `conv-${c}`),
          attr('gen_ai.provider.name', 'openai'),
          attr(
            'gen_ai.input.messages',
            JSON.stringify([
              { role: 'user', parts: [{ type: 'text', content: `Question ${c} about city ${c % 997}` }] },
            ]),
          ),
        ],
      };
    if (i % 3 === 0)
      return {
        ...base,
        parentSpanId: root,
        name: 'execute_tool lookup',
        attributes: [
          attr('gen_ai.operation.name', 'execute_tool'),
          attr('gen_ai.tool.name', 'lookup'),
          attr('gen_ai.tool.call.arguments', `{"q": ${c}}`),
          attr('gen_ai.tool.call.result', `{"rows": ${i}}`),
        ],
      };
    return {
      ...base,
      parentSpanId: root,
      name: 'chat gpt-4o-mini',
      status: i === 5 && c % 50 === 0 ? { code: 2, message: 'rate limited' } : {},
      attributes: [
        attr('gen_ai.operation.name', 'chat'),
        attr('gen_ai.provider.name', 'openai'),
        attr('gen_ai.request.model', 'gpt-4o-mini'),
        attr('gen_ai.usage.input_tokens', 100),
        attr('gen_ai.usage.output_tokens', 20),
        attr(
          'gen_ai.output.messages',
          JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: `Answer ${c}.${i}` }], finish_reason: 'stop' },
          ]),
        ),
      ],
    };
  });
}

/** One turn of BIG_TURN_SPANS spans: a root agent and its chat and tool steps. */
function bigTurn(salt: number): Span[] {
  const traceId = hex(salt, 8) + 'f'.repeat(24);
  const root = hex(salt, 4) + 'f'.repeat(12);
  const spans = conversation(0, salt).slice(0, 1);
  spans[0] = { ...spans[0]!, traceId, spanId: root, endMs: T0_MS + BIG_TURN_SPANS * 10 };
  spans[0].attributes = spans[0].attributes.map((a) =>
    a.key === 'gen_ai.conversation.id' ? attr('gen_ai.conversation.id', 'conv-big') : a,
  );
  for (let i = 1; i < BIG_TURN_SPANS; i += 1) {
    const step = conversation(i, salt)[i % 3 === 0 ? 3 : 1]!;
    spans.push({ ...step, traceId, parentSpanId: root, spanId: hex(salt, 4) + 'e' + hex(i, 11) });
  }
  return spans;
}

async function send(
  client: LoadClient,
  route: string,
  project: string,
  conversations: number,
  salt: number,
): Promise<number> {
  const requests = Math.ceil(conversations / PER_REQUEST);
  const { seconds } = await timed(() =>
    runPool(requests, IN_FLIGHT, async (r) => {
      const spans: Span[] = [];
      for (let c = r * PER_REQUEST; c < Math.min(conversations, (r + 1) * PER_REQUEST); c += 1)
        spans.push(...conversation(c, salt));
      const reply = await client.postOk(route, toProtobuf(exportReq(spans.map(otlp), project)), true);
      if (!reply.text?.includes('"partial_success":null')) throw new Error(`${route}: ${reply.text}`);
    }),
  );
  return (conversations * PER_CONVERSATION) / seconds;
}

interface Read {
  name: string;
  median: number;
  p95: number;
  bytes: number;
}

async function timeRead(json: LoadClient, name: string, route: string, body: unknown): Promise<Read> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i <= RUNS; i += 1) {
    const t = performance.now();
    const reply = await json.postOk(route, JSON.stringify(body));
    if (i > 0) times.push(performance.now() - t);
    bytes = reply.bytes;
  }
  return { name, median: quantile(times, 0.5), p95: quantile(times, 0.95), bytes };
}

interface StoreResult {
  store: string;
  otelRate: number;
  agentsRate: number;
  loadRate: number;
  spans: number;
  reads: Read[];
  serverCpuSeconds: number;
}

async function runStore(store: string): Promise<StoreResult | null> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-agents-'));
  const key = randomBytes(20).toString('hex');
  const db = store === 'postgres' ? await freshPostgresDatabase('agents') : null;
  if (store === 'postgres' && db === null) {
    log('PostgreSQL unavailable: skipped');
    return null;
  }
  process.env.BENCH_SERVER = 'dist';
  let server: ChildServer | null = null;
  try {
    server = await startHeddle({
      dataDir,
      adminKey: key,
      env: db ? { HEDDLE_DATABASE_URL: db.url } : {},
      cpuProfileDir: process.env.BENCH_AGENT_PROFILE_DIR,
    });
    const proto = new LoadClient(server.url, key, IN_FLIGHT, 'application/x-protobuf');
    const json = new LoadClient(server.url, key, 1);
    const rateConversations = Math.ceil(RATE_SPANS / PER_CONVERSATION);
    const otelRate = await send(proto, '/otel/v1/traces', 'bench/otel-rate', rateConversations, 1);
    const agentsRate = await send(proto, '/agents/otel/v1/traces', 'bench/agents-rate', rateConversations, 2);
    log(`${store}: /otel/v1/traces ${otelRate.toFixed(0)} spans/s, /agents/otel/v1/traces ${agentsRate.toFixed(0)}`);
    const project = 'bench/agents';
    const conversations = Math.ceil(SPANS / PER_CONVERSATION);
    const cpu0 = server.cpuSeconds();
    const loadRate = await send(proto, '/agents/otel/v1/traces', project, conversations, 3);
    await proto.postOk('/agents/otel/v1/traces', toProtobuf(exportReq(bigTurn(3).map(otlp), project)));
    const serverCpuSeconds = server.cpuSeconds() - cpu0;
    log(`${store}: ${conversations * PER_CONVERSATION} spans loaded at ${loadRate.toFixed(0)} spans/s`);
    const mid = Math.floor(conversations / 2);
    const reads = [
      await timeRead(json, 'agents list', '/agents/query', { project_id: project }),
      await timeRead(json, 'a conversation as chat', '/agents/conversations/chat', {
        project_id: project,
        conversation_id: `conv-${mid}`,
      }),
      await timeRead(json, `a ${BIG_TURN_SPANS}-span turn as chat`, '/agents/traces/chat', {
        project_id: project,
        trace_id: hex(3, 8) + 'f'.repeat(24),
      }),
      await timeRead(json, 'message search', '/agents/search', { project_id: project, query: 'city 42' }),
      await timeRead(json, 'spans grouped by agent', '/agents/spans/query', {
        project_id: project,
        group_by: [{ key: 'agent_name' }],
      }),
    ];
    for (const r of reads) log(`${store}: ${r.name} median ${r.median.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms`);
    proto.close();
    json.close();
    return { store, otelRate, agentsRate, loadRate, spans: conversations * PER_CONVERSATION, reads, serverCpuSeconds };
  } finally {
    await server?.stop();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: StoreResult[] = [];
for (const store of STORES) {
  const result = await runStore(store);
  if (result) results.push(result);
}
const rows = results.flatMap((r) => [
  `| ${r.store} | ingest of the same ${RATE_SPANS} spans: /otel/v1/traces / /agents/otel/v1/traces | ${r.otelRate.toFixed(0)} / ${r.agentsRate.toFixed(0)} spans/s (${((100 * r.agentsRate) / r.otelRate).toFixed(0)} %) | ≥ 50 % |`,
  `| ${r.store} | load of ${r.spans} spans through /agents/otel/v1/traces | ${r.loadRate.toFixed(0)} spans/s | |`,
  ...r.reads.map(
    (x) =>
      `| ${r.store} | ${x.name} (${(x.bytes / 1e3).toFixed(1)} kB) | median ${x.median.toFixed(1)} ms, p95 ${x.p95.toFixed(1)} ms | ≤ 100 ms |`,
  ),
]);
const md = resultsMarkdown(
  `Agent spans through the API (compiled server, ${SPANS} spans + a ${BIG_TURN_SPANS}-span turn)`,
  ['Store', 'What', 'Result', 'Goal'],
  rows,
);
process.stdout.write(md);
writeResults(md, results, 'agents');
