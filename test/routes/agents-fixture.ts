import type { LightMyRequestResponse } from 'fastify';
import { after, before } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { attr, exportReq, sendOtel, type Attr, type SendOptions } from './otel-fixture.js';

/** The test vector of docs/spec/agents.md §2.8 and helpers for the agents route tests. */

export const VTRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
export const S1 = '00f067aa0ba902b7';
export const S2 = 'b7ad6b7169203331';
export const S3 = 'c1a2b3c4d5e6f708';
export const S4 = 'd4e5f60718293a4b';
const T0 = 1767225600000000000n; // 2026-01-01T00:00:00Z
export const at = (ms: number): string => String(T0 + BigInt(ms) * 1_000_000n);

const USER = { role: 'user', parts: [{ type: 'text', content: 'Weather in Lisbon?' }] };
const TOOL_CALL = { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Lisbon' } };
const ANSWER = [{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny, 24°C.' }], finish_reason: 'stop' }];
const LLM = (input: number, output: number): Attr[] => [
  attr('gen_ai.operation.name', 'chat'),
  attr('gen_ai.provider.name', 'openai'),
  attr('gen_ai.request.model', 'gpt-4o-mini'),
  attr('gen_ai.response.model', 'gpt-4o-mini-2024-07-18'),
  attr('gen_ai.usage.input_tokens', input),
  attr('gen_ai.usage.output_tokens', output),
  attr('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: 'You are a travel assistant.' }])),
];

export interface VSpan {
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number | null;
  attributes: Attr[];
  status?: Record<string, unknown>;
  traceId?: string;
  events?: unknown[];
}

/** A span in OTLP/JSON form with times as offsets (ms) from 2026-01-01T00:00:00Z. */
export function vspan(s: VSpan): Record<string, unknown> {
  return {
    traceId: s.traceId ?? VTRACE,
    spanId: s.spanId,
    ...(s.parentSpanId !== undefined ? { parentSpanId: s.parentSpanId } : {}),
    name: s.name,
    kind: 1,
    startTimeUnixNano: at(s.startMs),
    endTimeUnixNano: s.endMs === null ? '0' : at(s.endMs),
    attributes: s.attributes,
    ...(s.events ? { events: s.events } : {}),
    status: s.status ?? {},
  };
}

export const VECTOR: VSpan[] = [
  {
    spanId: S1,
    name: 'invoke_agent trip_planner',
    startMs: 0,
    endMs: 4000,
    attributes: [
      attr('gen_ai.operation.name', 'invoke_agent'),
      attr('gen_ai.agent.name', 'trip_planner'),
      attr('gen_ai.agent.version', '1.2.0'),
      attr('gen_ai.conversation.id', 'conv-42'),
      attr('gen_ai.provider.name', 'openai'),
      attr('gen_ai.request.model', 'gpt-4o-mini'),
      attr('gen_ai.input.messages', JSON.stringify([USER])),
      attr('gen_ai.output.messages', JSON.stringify(ANSWER)),
      attr('app.tenant', 'acme-eu'),
    ],
    status: { code: 1 },
  },
  {
    spanId: S2,
    parentSpanId: S1,
    name: 'chat gpt-4o-mini',
    startMs: 100,
    endMs: 1100,
    attributes: [
      ...LLM(50, 10),
      attr('gen_ai.input.messages', JSON.stringify([USER])),
      attr(
        'gen_ai.output.messages',
        JSON.stringify([{ role: 'assistant', parts: [TOOL_CALL], finish_reason: 'tool_call' }]),
      ),
    ],
  },
  {
    spanId: S3,
    parentSpanId: S1,
    name: 'execute_tool get_weather',
    startMs: 1200,
    endMs: 1500,
    attributes: [
      attr('gen_ai.operation.name', 'execute_tool'),
      attr('gen_ai.tool.name', 'get_weather'),
      attr('gen_ai.tool.call.id', 'call_1'),
      attr('gen_ai.tool.call.arguments', '{"city": "Lisbon"}'),
      attr('gen_ai.tool.call.result', '{"temp_c":24,"sky":"sunny"}'),
    ],
    status: { code: 1 },
  },
  {
    spanId: S4,
    parentSpanId: S1,
    name: 'chat gpt-4o-mini',
    startMs: 1600,
    endMs: 3900,
    attributes: [
      ...LLM(80, 12),
      attr(
        'gen_ai.input.messages',
        JSON.stringify([
          USER,
          { role: 'assistant', parts: [TOOL_CALL] },
          {
            role: 'tool',
            parts: [{ type: 'tool_call_response', id: 'call_1', response: { temp_c: 24, sky: 'sunny' } }],
          },
        ]),
      ),
      attr('gen_ai.output.messages', JSON.stringify(ANSWER)),
    ],
  },
];

/** An export of `spans` to `project` through the agents ingest (or `opts.url`). */
export function sendAgents(
  h: TestApp,
  spans: VSpan[],
  project: string,
  opts: SendOptions = {},
): Promise<LightMyRequestResponse> {
  return sendOtel(h, exportReq(spans.map(vspan), project), { url: '/agents/otel/v1/traces', ...opts });
}

/** Posts and returns the JSON answer, failing on any status but 200. */
export async function ok(h: TestApp, url: string, body: unknown): Promise<any> {
  const res = await h.post(url, body);
  if (res.statusCode !== 200) throw new Error(`${url} ${res.statusCode}: ${res.body}`);
  return res.json();
}

export const eqQuery = (field: string, value: unknown) => ({
  $expr: { $eq: [{ $getField: field }, { $literal: value }] },
});

/** One app for a whole test file (each test uses its own project), closed when the file ends. */
export function sharedApp(): () => TestApp {
  let app: TestApp | null = null;
  const cleanups: Array<() => unknown> = [];
  before(async () => {
    app = await buildTestApp({ after: (fn: () => unknown) => void cleanups.push(fn) } as never);
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  return () => app!;
}
