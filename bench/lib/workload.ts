import { randomBytes } from 'node:crypto';
import { opDisplayName } from '../../src/domain/refs.js';
import { formatMicros } from '../../src/domain/time.js';
import type { CallEndPart, CallPart, CallStartPart } from '../../src/store/types.js';

/**
 * Synthetic traces shaped like an LLM app instrumented with a Weave SDK: an agent root, a
 * retrieval step, chat-completion calls (one nested under a tool call) with OpenAI-style
 * messages, outputs and token usage. About 1 KB of JSON per call (start + end item).
 * Text comes from a fixed pool picked by a seeded generator, so runs are comparable and
 * generating a million calls stays cheap.
 */

export interface StartBody {
  project_id: string;
  id: string;
  op_name: string;
  display_name: null;
  trace_id: string;
  parent_id: string | null;
  thread_id: string | null;
  turn_id: null;
  started_at: string;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  wb_user_id: null;
  wb_run_id: null;
  wb_run_step: null;
}

export interface EndBody {
  project_id: string;
  id: string;
  ended_at: string;
  exception: string | null;
  output: unknown;
  summary: Record<string, unknown>;
  wb_run_step_end: null;
}

export interface GenCall {
  start: StartBody;
  end: EndBody;
}

/** Calls per generated trace (see `makeTrace`). */
export const CALLS_PER_TRACE = 5;

const WORDS = (
  'the a model answer question context retrieval vector index document user assistant system tool search web ' +
  'result latency token prompt completion embedding chunk score summary report customer order invoice shipping ' +
  'refund policy account password reset billing plan upgrade weather forecast city travel booking flight hotel ' +
  'price compare product review rating support ticket priority escalate resolve status pending done failed'
).split(' ');

/** mulberry32: a tiny seeded generator, good enough to vary synthetic text. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = rng(42);
const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

function sentencePool(count: number, minWords: number, maxWords: number): string[] {
  const pool: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const words: string[] = [];
    for (let w = int(minWords, maxWords); w > 0; w -= 1) words.push(WORDS[int(0, WORDS.length - 1)]!);
    const text = words.join(' ');
    pool.push(`${text[0]!.toUpperCase()}${text.slice(1)}.`);
  }
  return pool;
}

const QUESTIONS = sentencePool(512, 6, 14);
const ANSWERS = sentencePool(512, 8, 18);
const SNIPPETS = sentencePool(512, 6, 12);
const pick = (pool: string[]): string => pool[int(0, pool.length - 1)]!;

const ATTRIBUTES = {
  weave: { client_version: '0.51.56', source: 'python-sdk', os_name: 'Linux', sys_version: '3.12.4' },
};
const MODEL = 'gpt-4o-mini-2024-07-18';
const SYSTEM_PROMPT = 'You are a helpful support assistant. Answer briefly.';

function digest(): string {
  return randomBytes(20).toString('base64url').slice(0, 26);
}

export interface OpRefs {
  /** Versions of the root op, so a version wildcard (`run_agent:*`) matches several names. */
  agent: string[];
  retrieve: string;
  chat: string;
  tool: string;
  /** A root op used by a small share of traces only (see makeCalls `rareEvery`). */
  rare: string;
}

export function opRefs(projectId: string, versions = 1): OpRefs {
  const ref = (name: string): string => `weave:///${projectId}/op/${name}:${digest()}`;
  return {
    agent: Array.from({ length: versions }, () => ref('run_agent')),
    retrieve: ref('retrieve'),
    chat: ref('openai.chat.completions.create'),
    tool: ref('search_web'),
    rare: ref('evaluate'),
  };
}

/** A 36-character UUIDv7-shaped id whose time part is `ms` (ordering only matters roughly here). */
function callId(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function usage(prompt: number, completion: number): Record<string, number> {
  return { requests: 1, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

interface Step {
  op: string;
  parent: number | null;
  inputs: Record<string, unknown>;
  output: unknown;
  summary: Record<string, unknown>;
}

function chatStep(parent: number, question: string): Step {
  const [p, c] = [int(300, 1800), int(40, 400)];
  return {
    op: 'chat',
    parent,
    inputs: {
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: question },
      ],
      model: 'gpt-4o-mini',
      temperature: 0.2,
    },
    output: {
      id: `chatcmpl-${digest()}`,
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: pick(ANSWERS) }, finish_reason: 'stop' }],
      usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c },
    },
    summary: { usage: { [MODEL]: usage(p, c) } },
  };
}

function traceSteps(projectId: string): Step[] {
  const question = pick(QUESTIONS);
  const docs = [0, 1, 2].map(() => ({
    id: `doc-${int(1, 99999)}`,
    score: Math.round(random() * 1000) / 1000,
    text: pick(SNIPPETS),
  }));
  return [
    {
      op: 'agent',
      parent: null,
      inputs: {
        self: `weave:///${projectId}/object/SupportAgent:${digest()}`,
        question,
        config: { max_steps: 4, temperature: 0.2 },
      },
      output: { answer: pick(ANSWERS), steps: 3 },
      summary: {
        usage: { [MODEL]: usage(int(900, 3000), int(100, 700)) },
        status_counts: { success: CALLS_PER_TRACE, error: 0 },
      },
    },
    { op: 'retrieve', parent: 0, inputs: { query: question, k: 3 }, output: docs, summary: {} },
    chatStep(0, question),
    {
      op: 'tool',
      parent: 0,
      inputs: { query: pick(SNIPPETS) },
      output: { results: [{ title: pick(SNIPPETS), url: `https://example.com/${int(1, 9999)}` }] },
      summary: {},
    },
    chatStep(3, question),
  ];
}

/** One trace of CALLS_PER_TRACE calls starting at `startMicros` under `rootOp`; children nest up to two levels. */
export function makeTrace(projectId: string, ops: OpRefs, startMicros: number, rootOp: string): GenCall[] {
  const steps = traceSteps(projectId);
  const ids = steps.map((_, i) => callId(Math.floor(startMicros / 1000) + i));
  return steps.map((step, i) => {
    const started = startMicros + i * 150_000;
    const ended = started + (i === 0 ? 2_000_000 : int(50_000, 900_000));
    const op = step.op === 'agent' ? rootOp : ops[step.op as 'retrieve' | 'chat' | 'tool'];
    return {
      start: {
        project_id: projectId,
        id: ids[i]!,
        op_name: op,
        display_name: null,
        trace_id: ids[0]!,
        parent_id: step.parent === null ? null : ids[step.parent]!,
        thread_id: null,
        turn_id: null,
        started_at: formatMicros(started),
        attributes: ATTRIBUTES,
        inputs: step.inputs,
        wb_user_id: null,
        wb_run_id: null,
        wb_run_step: null,
      },
      end: {
        project_id: projectId,
        id: ids[i]!,
        ended_at: formatMicros(ended),
        exception: null,
        output: step.output,
        summary: step.summary,
        wb_run_step_end: null,
      },
    };
  });
}

/**
 * `count` calls in whole traces, one trace starting every `spacingMicros` from `fromMicros`. Root
 * ops cycle through the agent versions; with `rareEvery`, every rareEvery-th trace (counting from
 * `firstTrace`) has the rare root op instead.
 */
export function makeCalls(
  projectId: string,
  ops: OpRefs,
  count: number,
  fromMicros: number,
  spacingMicros: number,
  opts: { rareEvery?: number; firstTrace?: number } = {},
): GenCall[] {
  const calls: GenCall[] = [];
  for (let t = 0; calls.length < count; t += 1) {
    const n = (opts.firstTrace ?? 0) + t;
    const root = opts.rareEvery && n % opts.rareEvery === 0 ? ops.rare : ops.agent[n % ops.agent.length]!;
    for (const call of makeTrace(projectId, ops, fromMicros + t * spacingMicros, root)) {
      if (calls.length < count) calls.push(call);
    }
  }
  return calls;
}

/** The `/call/upsert_batch` body for these calls: every start item, then every end item. */
export function batchBody(calls: GenCall[]): string {
  const items = [
    ...calls.map((c) => ({ mode: 'start', req: { start: c.start } })),
    ...calls.map((c) => ({ mode: 'end', req: { end: c.end } })),
  ];
  return JSON.stringify({ batch: items });
}

/** The store parts the service derives from these calls (what CallWriteService hands to calls.write). */
export function toParts(calls: GenCall[], userId: string, toMicros: (iso: string) => number): CallPart[] {
  const starts = calls.map((c): CallStartPart => ({
    kind: 'start',
    project_id: c.start.project_id,
    id: c.start.id,
    op_name: c.start.op_name,
    op_display_name: opDisplayName(c.start.op_name),
    display_name: null,
    trace_id: c.start.trace_id,
    parent_id: c.start.parent_id,
    thread_id: null,
    turn_id: null,
    started_at: toMicros(c.start.started_at),
    attributes: JSON.stringify(c.start.attributes),
    inputs: JSON.stringify(c.start.inputs),
    otel_dump: null,
    wb_user_id: userId,
    wb_run_id: null,
    wb_run_step: null,
  }));
  const ends = calls.map((c): CallEndPart => ({
    kind: 'end',
    project_id: c.end.project_id,
    id: c.end.id,
    ended_at: toMicros(c.end.ended_at),
    exception: c.end.exception,
    output: JSON.stringify(c.end.output),
    summary: JSON.stringify(c.end.summary),
    // as call-service.ts makes an end part
    parsed_summary: c.end.summary,
    wb_run_step_end: null,
  }));
  return [...starts, ...ends];
}
