import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { emptySpan } from '../src/services/agents/agent-start.js';
import type { AgentSpanRecord } from '../src/store/agent-types.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../src/store/types.js';

/**
 * Agent-span reads at scale (issue 34): loads BENCH_AGENT_SPANS spans (default 20 000; the issue's
 * target is 1 000 000 in 100 000 conversations) straight into the store, 10 spans per conversation
 * (an invoke_agent root, chat and tool spans, one turn each), then times the reads the agents pages
 * make: the agents list, a conversation's turns and one turn's spans, a message search and a grouped
 * span query. SQLite always; PostgreSQL too when BENCH_PG_URL names an empty database.
 * Run: `BENCH_AGENT_SPANS=1000000 npx tsx bench/agents.ts`.
 */

const SPANS = Number(process.env.BENCH_AGENT_SPANS ?? '20000');
const PER_CONVERSATION = 10;
const RUNS = 5;
const PROJECT = 'bench/agents';
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

function spansOf(conversation: number): AgentSpanRecord[] {
  const trace = hex(conversation + 1, 32);
  const root = hex(conversation * PER_CONVERSATION + 1, 16);
  const t0 = 1_767_225_600_000_000 + conversation * 10_000_000;
  return Array.from({ length: PER_CONVERSATION }, (_, i) => {
    const s = emptySpan({
      project_id: PROJECT,
      trace_id: trace,
      span_id: hex(conversation * PER_CONVERSATION + i + 1, 16),
      parent_span_id: i === 0 ? '' : root,
      started_at: t0 + i * 100_000,
      ended_at: t0 + i * 100_000 + 50_000,
      status_code: i === 5 && conversation % 50 === 0 ? 'ERROR' : 'OK',
    });
    if (i === 0) {
      Object.assign(s, {
        operation_name: 'invoke_agent',
        agent_name: `agent-${conversation % 20}`,
        conversation_id: `conv-${conversation}`,
      });
      s.details.input_messages = [
        { role: 'user', content: `Question ${conversation} about city ${conversation % 997}`, finish_reason: '' },
      ];
    } else if (i % 3 === 0) {
      Object.assign(s, { operation_name: 'execute_tool', tool_name: 'lookup' });
      s.details.tool_call_arguments = `{"q": ${conversation}}`;
    } else {
      Object.assign(s, { operation_name: 'chat', request_model: 'gpt-4o-mini', input_tokens: 100, output_tokens: 20 });
      s.details.output_messages = [
        { role: 'assistant', content: `Answer ${conversation}.${i}`, finish_reason: 'stop' },
      ];
    }
    return s;
  });
}

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

async function bench(name: string, store: TraceStore): Promise<void> {
  await store.migrate();
  const conversations = Math.ceil(SPANS / PER_CONVERSATION);
  const t = performance.now();
  for (let c = 0; c < conversations; c += 50)
    await store.agentSpans.write(
      Array.from({ length: Math.min(50, conversations - c) }, (_, i) => spansOf(c + i)).flat(),
    );
  const loadS = (performance.now() - t) / 1000;
  const s = store.agentSpans;
  const mid = Math.floor(conversations / 2);
  const results: Record<string, number> = {
    'agents list': await median(() =>
      s.agents({ projectId: PROJECT, agentName: null, byVersion: false, sort: [], limit: 100, offset: 0 }),
    ),
    'conversation chat (turns + spans)': await median(async () => {
      const turns = await s.conversationTurns(PROJECT, `conv-${mid}`, 50, 0);
      for (const turn of turns.traces) await s.traceSpans(PROJECT, turn.trace_id);
    }),
    'message search': await median(() =>
      s.search({
        projectId: PROJECT,
        text: 'city 42',
        traceId: null,
        conversationId: null,
        agentName: null,
        providerName: null,
        requestModel: null,
        roles: null,
        startedAfter: null,
        startedBefore: null,
        limit: 20,
        offset: 0,
      }),
    ),
    'grouped span query (by agent)': await median(() =>
      s.groups({
        projectId: PROJECT,
        filter: null,
        startedAfter: null,
        startedBefore: null,
        groupBy: [{ alias: 'agent_name', field: { kind: 'column', column: 'agent_name', type: 'string' } }],
        measures: [],
        having: [],
        sort: [{ name: 'span_count', direction: 'desc' }],
        limit: 50,
        offset: 0,
      }),
    ),
  };
  console.log(
    `\n${name}: ${SPANS} spans loaded in ${loadS.toFixed(1)} s (${Math.round(SPANS / loadS)} spans/s straight into the store)`,
  );
  console.log('| read | median ms |\n|---|---|');
  for (const [read, ms] of Object.entries(results)) console.log(`| ${read} | ${ms.toFixed(1)} |`);
  await store.close();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-agents-'));
try {
  await bench('SQLite', new SqliteStore({ file: path.join(dir, 'heddle.sqlite') }));
  if (process.env.BENCH_PG_URL) await bench('PostgreSQL', new PostgresStore({ url: process.env.BENCH_PG_URL }));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
