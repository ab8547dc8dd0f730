/**
 * Agent spans for the UI tests and screenshots, sent through the real ingest route
 * (`POST /agents/otel/v1/traces`, OTLP/JSON with GenAI attributes): one three-turn conversation of
 * the agent `trip_planner` (version 1.2.0 for turns 1–2, 1.3.0 for turn 3), whose first turn calls a
 * tool, whose second starts the subagent `weather_agent` and whose third compacts the context, and a
 * second, one-turn conversation.
 * What was sent is returned so the tests can compare what the pages show with it.
 */

const T0 = Date.parse('2026-11-20T10:00:00Z');
const ns = (ms: number) => String(BigInt(T0 + ms) * 1_000_000n);

type Attr = { key: string; value: Record<string, unknown> };
function attr(key: string, value: string | number): Attr {
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
}
const text = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });
const msgs = (...m: unknown[]) => JSON.stringify(m);

export const AGENT = 'trip_planner';
export const SUBAGENT = 'weather_agent';
export const CONVERSATION = 'conv-lisbon-trip';
export const OTHER_CONVERSATION = 'conv-rome';
export const MODEL = 'gpt-4o-mini';
/** Turn 3's root span reports a context compaction. */
export const COMPACTION = {
  summary: 'Kept the Lisbon and Porto forecasts; dropped tool chatter.',
  before: 9,
  after: 3,
};

export interface SeededTurn {
  traceId: string;
  user: string;
  answer: string;
  inputTokens: number;
  outputTokens: number;
  /** The root span's duration, ms. */
  latencyMs: number;
}

export interface SeededAgents {
  turns: SeededTurn[];
  tool: { name: string; arguments: string; result: string; spanId: string };
  subagentSpanId: string;
  other: SeededTurn;
  /** Per agent, over the spans it owns (itself and descendants up to the next agent): what was sent. */
  byAgent: Record<string, AgentTotals>;
  /** How many spans were sent, and how many per operation name. */
  spanCount: number;
  byOperation: Record<string, number>;
}

export interface AgentTotals {
  invocations: number;
  turns: number;
  conversations: number;
  inputTokens: number;
  outputTokens: number;
  errors: number;
  /** Invocations per version. */
  versions: Record<string, number>;
}

const attrOf = (s: Span, key: string): string | number | undefined => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  return typeof v.stringValue === 'string' ? v.stringValue : Number(v.intValue ?? v.doubleValue);
};

/** Sums what was sent per owning agent (the nearest invoke_agent span at or above each span). */
function totalsByAgent(spans: Span[]): Record<string, AgentTotals> {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const owner = (s: Span): Span | undefined => {
    for (let c: Span | undefined = s; c; c = c.parentSpanId ? byId.get(c.parentSpanId) : undefined)
      if (attrOf(c, 'gen_ai.operation.name') === 'invoke_agent') return c;
    return undefined;
  };
  const out: Record<string, AgentTotals> = {};
  const traces: Record<string, Set<string>> = {};
  const convs: Record<string, Set<string>> = {};
  for (const s of spans) {
    const o = owner(s);
    if (!o) continue;
    const name = String(attrOf(o, 'gen_ai.agent.name'));
    const t = (out[name] ??= {
      invocations: 0,
      turns: 0,
      conversations: 0,
      inputTokens: 0,
      outputTokens: 0,
      errors: 0,
      versions: {},
    });
    (traces[name] ??= new Set()).add(s.traceId);
    (convs[name] ??= new Set()).add(String(attrOf(o, 'gen_ai.conversation.id')));
    t.inputTokens += Number(attrOf(s, 'gen_ai.usage.input_tokens') ?? 0);
    t.outputTokens += Number(attrOf(s, 'gen_ai.usage.output_tokens') ?? 0);
    if (s.error) t.errors++;
    if (o === s) {
      t.invocations++;
      const v = String(attrOf(s, 'gen_ai.agent.version'));
      t.versions[v] = (t.versions[v] ?? 0) + 1;
    }
  }
  for (const name of Object.keys(out)) {
    out[name]!.turns = traces[name]!.size;
    out[name]!.conversations = convs[name]!.size;
  }
  return out;
}

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: number;
  end: number;
  attributes: Attr[];
  error?: boolean;
}

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const traceOf = (n: number) => `a9e1${hex(n, 28)}`;
const spanOf = (t: number, n: number) => `5b${hex(t, 6)}${hex(n, 8)}`;

function llm(model: string, input: number, output: number): Attr[] {
  return [
    attr('gen_ai.operation.name', 'chat'),
    attr('gen_ai.provider.name', 'openai'),
    attr('gen_ai.request.model', model),
    attr('gen_ai.response.model', `${model}-2024-07-18`),
    attr('gen_ai.usage.input_tokens', input),
    attr('gen_ai.usage.output_tokens', output),
  ];
}

function agentAttrs(name: string, version: string, conversation: string): Attr[] {
  return [
    attr('gen_ai.operation.name', 'invoke_agent'),
    attr('gen_ai.agent.name', name),
    attr('gen_ai.agent.version', version),
    attr('gen_ai.conversation.id', conversation),
    attr('gen_ai.provider.name', 'openai'),
    attr('gen_ai.request.model', MODEL),
  ];
}

function buildSpans(): { spans: Span[]; seeded: SeededAgents } {
  const spans: Span[] = [];
  const turns: SeededTurn[] = [];
  // Turn 1: the user asks, the model calls get_weather, the tool answers, the model answers.
  const t1 = traceOf(1);
  const u1 = 'What is the weather in Lisbon this weekend?';
  const a1 = 'Lisbon will be sunny, around 24 °C on Saturday and Sunday.';
  const args = '{"city":"Lisbon","days":2}';
  const result = '{"sat":{"temp_c":24,"sky":"sunny"},"sun":{"temp_c":23,"sky":"sunny"}}';
  const call = { type: 'tool_call', id: 'call_w1', name: 'get_weather', arguments: { city: 'Lisbon', days: 2 } };
  spans.push(
    {
      traceId: t1,
      spanId: spanOf(1, 1),
      name: `invoke_agent ${AGENT}`,
      start: 0,
      end: 3200,
      attributes: [
        ...agentAttrs(AGENT, '1.2.0', CONVERSATION),
        attr('gen_ai.input.messages', msgs(text('user', u1))),
        attr('gen_ai.output.messages', msgs(text('assistant', a1))),
        attr('app.tenant', 'acme-eu'),
      ],
    },
    {
      traceId: t1,
      spanId: spanOf(1, 2),
      parentSpanId: spanOf(1, 1),
      name: `chat ${MODEL}`,
      start: 100,
      end: 1100,
      attributes: [
        ...llm(MODEL, 120, 18),
        attr('gen_ai.input.messages', msgs(text('user', u1))),
        attr('gen_ai.output.messages', msgs({ role: 'assistant', parts: [call], finish_reason: 'tool_call' })),
      ],
    },
    {
      traceId: t1,
      spanId: spanOf(1, 3),
      parentSpanId: spanOf(1, 1),
      name: 'execute_tool get_weather',
      start: 1200,
      end: 1650,
      attributes: [
        attr('gen_ai.operation.name', 'execute_tool'),
        attr('gen_ai.tool.name', 'get_weather'),
        attr('gen_ai.tool.call.id', 'call_w1'),
        attr('gen_ai.tool.call.arguments', args),
        attr('gen_ai.tool.call.result', result),
      ],
    },
    {
      traceId: t1,
      spanId: spanOf(1, 4),
      parentSpanId: spanOf(1, 1),
      name: `chat ${MODEL}`,
      start: 1700,
      end: 3100,
      attributes: [
        ...llm(MODEL, 210, 24),
        attr(
          'gen_ai.input.messages',
          msgs(
            text('user', u1),
            { role: 'assistant', parts: [call] },
            {
              role: 'tool',
              parts: [{ type: 'tool_call_response', id: 'call_w1', response: JSON.parse(result) }],
            },
          ),
        ),
        attr('gen_ai.output.messages', msgs({ ...text('assistant', a1), finish_reason: 'stop' })),
      ],
    },
  );
  turns.push({ traceId: t1, user: u1, answer: a1, inputTokens: 330, outputTokens: 42, latencyMs: 3200 });

  // Turn 2: the planner hands the forecast to the subagent weather_agent.
  const t2 = traceOf(2);
  const u2 = 'And should I pack an umbrella for Porto on Monday?';
  const sub = 'Porto on Monday: light rain in the afternoon, 17 °C.';
  const a2 = 'Yes, pack an umbrella: Porto expects light rain on Monday afternoon.';
  spans.push(
    {
      traceId: t2,
      spanId: spanOf(2, 1),
      name: `invoke_agent ${AGENT}`,
      start: 60_000,
      end: 64_000,
      attributes: [
        ...agentAttrs(AGENT, '1.2.0', CONVERSATION),
        attr('gen_ai.input.messages', msgs(text('user', u2))),
        attr('gen_ai.output.messages', msgs(text('assistant', a2))),
      ],
    },
    {
      // the planner's model hands the question to the subagent (an agent used as a tool)
      traceId: t2,
      spanId: spanOf(2, 5),
      parentSpanId: spanOf(2, 1),
      name: `chat ${MODEL}`,
      start: 60_050,
      end: 60_150,
      attributes: [
        ...llm(MODEL, 100, 8),
        attr('gen_ai.input.messages', msgs(text('user', u2))),
        attr(
          'gen_ai.output.messages',
          msgs({
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_s1', name: SUBAGENT, arguments: { city: 'Porto', day: 'Monday' } }],
            finish_reason: 'tool_call',
          }),
        ),
      ],
    },
    {
      traceId: t2,
      spanId: spanOf(2, 2),
      parentSpanId: spanOf(2, 1),
      name: `invoke_agent ${SUBAGENT}`,
      start: 60_200,
      end: 62_500,
      attributes: [
        ...agentAttrs(SUBAGENT, '0.4.1', CONVERSATION),
        attr('gen_ai.input.messages', msgs(text('user', 'Forecast for Porto, Monday'))),
        attr('gen_ai.output.messages', msgs(text('assistant', sub))),
      ],
    },
    {
      traceId: t2,
      spanId: spanOf(2, 3),
      parentSpanId: spanOf(2, 2),
      name: `chat ${MODEL}`,
      start: 60_300,
      end: 62_400,
      attributes: [
        ...llm(MODEL, 90, 16),
        attr('gen_ai.input.messages', msgs(text('user', 'Forecast for Porto, Monday'))),
        attr('gen_ai.output.messages', msgs({ ...text('assistant', sub), finish_reason: 'stop' })),
      ],
    },
    {
      traceId: t2,
      spanId: spanOf(2, 4),
      parentSpanId: spanOf(2, 1),
      name: `chat ${MODEL}`,
      start: 62_600,
      end: 63_900,
      attributes: [
        ...llm(MODEL, 150, 20),
        attr('gen_ai.input.messages', msgs(text('user', u2), text('assistant', sub))),
        attr('gen_ai.output.messages', msgs({ ...text('assistant', a2), finish_reason: 'stop' })),
      ],
    },
  );
  turns.push({ traceId: t2, user: u2, answer: a2, inputTokens: 340, outputTokens: 44, latencyMs: 4000 });

  // Turn 3: a plain answer, from the next version of the planner.
  const t3 = traceOf(3);
  const u3 = 'Thanks! Suggest one hotel near the river in Porto.';
  const a3 = 'Try the Pestana Vintage Porto, right on the Ribeira riverside.';
  spans.push(
    {
      traceId: t3,
      spanId: spanOf(3, 1),
      name: `invoke_agent ${AGENT}`,
      start: 120_000,
      end: 121_800,
      attributes: [
        ...agentAttrs(AGENT, '1.3.0', CONVERSATION),
        // the planner compacted its context before this turn
        attr('weave.compaction.summary', COMPACTION.summary),
        attr('weave.compaction.items_before', COMPACTION.before),
        attr('weave.compaction.items_after', COMPACTION.after),
        attr('gen_ai.input.messages', msgs(text('user', u3))),
        attr('gen_ai.output.messages', msgs(text('assistant', a3))),
      ],
    },
    {
      traceId: t3,
      spanId: spanOf(3, 2),
      parentSpanId: spanOf(3, 1),
      name: `chat ${MODEL}`,
      start: 120_100,
      end: 121_700,
      attributes: [
        ...llm(MODEL, 180, 22),
        attr('gen_ai.input.messages', msgs(text('user', u3))),
        attr('gen_ai.output.messages', msgs({ ...text('assistant', a3), finish_reason: 'stop' })),
      ],
    },
  );
  turns.push({ traceId: t3, user: u3, answer: a3, inputTokens: 180, outputTokens: 22, latencyMs: 1800 });

  // Another conversation, an hour later, whose model call fails.
  const t4 = traceOf(4);
  const u4 = 'Is the Colosseum open on Sundays?';
  const a4 = 'Sorry, I could not reach the model.';
  spans.push(
    {
      traceId: t4,
      spanId: spanOf(4, 1),
      name: `invoke_agent ${AGENT}`,
      start: 3_600_000,
      end: 3_600_900,
      attributes: [
        ...agentAttrs(AGENT, '1.3.0', OTHER_CONVERSATION),
        attr('gen_ai.input.messages', msgs(text('user', u4))),
        attr('gen_ai.output.messages', msgs(text('assistant', a4))),
      ],
    },
    {
      traceId: t4,
      spanId: spanOf(4, 2),
      parentSpanId: spanOf(4, 1),
      name: `chat ${MODEL}`,
      start: 3_600_100,
      end: 3_600_800,
      attributes: [...llm(MODEL, 40, 0), attr('gen_ai.input.messages', msgs(text('user', u4)))],
      error: true,
    },
  );
  const other = { traceId: t4, user: u4, answer: a4, inputTokens: 40, outputTokens: 0, latencyMs: 900 };
  return {
    spans,
    seeded: {
      turns,
      tool: { name: 'get_weather', arguments: args, result, spanId: spanOf(1, 3) },
      subagentSpanId: spanOf(2, 2),
      other,
      byAgent: totalsByAgent(spans),
      spanCount: spans.length,
      byOperation: spans.reduce<Record<string, number>>((acc, x) => {
        const op = String(attrOf(x, 'gen_ai.operation.name'));
        acc[op] = (acc[op] ?? 0) + 1;
        return acc;
      }, {}),
    },
  };
}

/** Sends the agent spans to `project` through `/agents/otel/v1/traces` and returns what was sent. */
export async function seedAgents(base: string, key: string, project: string): Promise<SeededAgents> {
  const { spans, seeded } = buildSpans();
  const [entity, name] = project.split('/');
  const body = {
    resourceSpans: [
      {
        resource: {
          attributes: [attr('service.name', 'trip-bot'), attr('wandb.entity', entity!), attr('wandb.project', name!)],
        },
        scopeSpans: [
          {
            scope: { name: 'seed-agents' },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: 1,
              startTimeUnixNano: ns(s.start),
              endTimeUnixNano: ns(s.end),
              attributes: s.attributes,
              status: s.error ? { code: 2, message: 'upstream model timed out' } : { code: 1 },
            })),
          },
        ],
      },
    ],
  };
  const r = await fetch(base + '/agents/otel/v1/traces', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`/agents/otel/v1/traces: ${r.status} ${await r.text()}`);
  return seeded;
}
