import { encodeOtlpProtobuf } from '../../src/ingest/otel/otlp-protobuf.js';

/**
 * The OTLP workload of the OTel ingest benchmark: agent traces as an OpenInference / GenAI
 * instrumented LLM app exports them, cut into ExportTraceServiceRequest protobuf bodies. Built
 * once, deterministically (seeded ids), and sent unchanged to every receiver.
 */

export const SPANS_PER_TRACE = 5;
/** One trace in this many has a failing tool call (status ERROR with an exception event). */
const ERROR_EVERY = 20;

export interface OtlpWorkload {
  /** Heddle project (resource `wandb.entity`/`wandb.project`). */
  project: string;
  /** Phoenix project (resource `openinference.project.name`). */
  phoenixProject: string;
  bodies: Buffer[];
  spans: number;
  spansPerBody: number;
  bytesPerSpan: number;
}

type KeyValue = { key: string; value: Record<string, unknown> };

function anyValue(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  throw new Error(`unsupported attribute value ${String(value)}`);
}

function attrs(record: Record<string, unknown>): KeyValue[] {
  return Object.entries(record).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/** A small deterministic PRNG (mulberry32), so every run sends the same bytes. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomId(rand: () => number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 1) out[i] = Math.floor(rand() * 256);
  if (out.every((b) => b === 0)) out[0] = 1;
  return out;
}

const QUESTIONS = [
  'What is the refund policy for annual plans purchased through a reseller?',
  'Summarise the incident report from last Tuesday and list the follow-up actions.',
  'Which regions support data residency for the enterprise tier?',
  'Draft a polite reply declining the meeting and proposing two other slots next week.',
];

const llmAttrs = (
  model: string,
  messages: Array<[string, string]>,
  answer: string,
  prompt: number,
  completion: number,
): Record<string, unknown> => {
  const out: Record<string, unknown> = {
    'openinference.span.kind': 'LLM',
    'llm.system': 'openai',
    'llm.provider': 'openai',
    'llm.model_name': model,
    'llm.invocation_parameters': JSON.stringify({ model, temperature: 0.2, max_tokens: 512 }),
    'gen_ai.system': 'openai',
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': model,
    'gen_ai.response.model': `${model}-2024-07-18`,
    'gen_ai.usage.input_tokens': prompt,
    'gen_ai.usage.output_tokens': completion,
    'llm.token_count.prompt': prompt,
    'llm.token_count.completion': completion,
    'llm.token_count.total': prompt + completion,
    'input.value': JSON.stringify({ messages: messages.map(([role, content]) => ({ role, content })) }),
    'input.mime_type': 'application/json',
    'output.value': answer,
    'output.mime_type': 'text/plain',
  };
  messages.forEach(([role, content], i) => {
    out[`llm.input_messages.${i}.message.role`] = role;
    out[`llm.input_messages.${i}.message.content`] = content;
  });
  out['llm.output_messages.0.message.role'] = 'assistant';
  out['llm.output_messages.0.message.content'] = answer;
  return out;
};

interface SpanSpec {
  name: string;
  kind: number;
  parent: number | null;
  /** Offsets from the trace start, ms. */
  from: number;
  to: number;
  attributes: Record<string, unknown>;
  error?: string;
}

const agentAttrs = (n: number, question: string, answer: string): Record<string, unknown> => ({
  'openinference.span.kind': 'AGENT',
  'gen_ai.operation.name': 'invoke_agent',
  'gen_ai.agent.name': 'support_agent',
  'session.id': `session-${n % 50}`,
  'user.id': `user-${n % 17}`,
  'input.value': JSON.stringify({ question }),
  'input.mime_type': 'application/json',
  'output.value': answer,
  'output.mime_type': 'text/plain',
  metadata: JSON.stringify({ app_version: '1.4.2', channel: 'web' }),
  'tag.tags': ['bench', 'support'],
});

/** The five spans of trace number `n`: agent → retriever, llm, tool → llm. */
function traceSpecs(n: number): SpanSpec[] {
  const question = QUESTIONS[n % QUESTIONS.length]!;
  const docs = [0, 1, 2].map(
    (i) => `Document ${(n * 7 + i) % 997}: ${question.slice(0, 40)} … policy text section ${i + 1}, revised 2025.`,
  );
  const failing = n % ERROR_EVERY === ERROR_EVERY - 1;
  const answer = `Based on the documents, here is the answer to "${question}" with two caveats and a link to the policy page.`;
  return [
    {
      name: 'support_agent.run',
      kind: 1,
      parent: null,
      from: 0,
      to: 2400,
      attributes: agentAttrs(n, question, answer),
    },
    {
      name: 'vector_store.search',
      kind: 1,
      parent: 0,
      from: 10,
      to: 180,
      attributes: {
        'openinference.span.kind': 'RETRIEVER',
        'input.value': question,
        ...Object.fromEntries(
          docs.flatMap((d, i) => [
            [`retrieval.documents.${i}.document.id`, `doc-${(n * 7 + i) % 997}`],
            [`retrieval.documents.${i}.document.content`, d],
            [`retrieval.documents.${i}.document.score`, 0.91 - i * 0.07],
          ]),
        ),
      },
    },
    {
      name: 'ChatCompletion',
      kind: 3,
      parent: 0,
      from: 200,
      to: 1300,
      attributes: llmAttrs(
        'gpt-4o-mini',
        [
          ['system', 'You are a helpful support agent. Cite the documents.'],
          ['user', `${question}\n\nContext:\n${docs.join('\n')}`],
        ],
        'I will look up the account first.',
        420 + (n % 50),
        24,
      ),
    },
    {
      name: 'lookup_account',
      kind: 1,
      parent: 0,
      from: 1310,
      to: 2390,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'lookup_account',
        'tool.description': 'Looks up an account by user id',
        'tool.parameters': JSON.stringify({ type: 'object', properties: { user_id: { type: 'string' } } }),
        'input.value': JSON.stringify({ user_id: `user-${n % 17}` }),
        'input.mime_type': 'application/json',
        'output.value': failing ? '' : JSON.stringify({ plan: 'annual', reseller: true, region: 'eu-west' }),
      },
      error: failing ? 'TimeoutError: account service did not answer within 1 s' : undefined,
    },
    {
      name: 'ChatCompletion',
      kind: 3,
      parent: 3,
      from: 1400,
      to: 2380,
      attributes: llmAttrs(
        'gpt-4o',
        [
          ['system', 'Answer using the account data.'],
          ['user', question],
        ],
        answer,
        180 + (n % 30),
        96,
      ),
    },
  ];
}

function encodeTrace(n: number, rand: () => number, baseNs: bigint): Array<Record<string, unknown>> {
  const traceId = randomId(rand, 16);
  const specs = traceSpecs(n);
  const ids = specs.map(() => randomId(rand, 8));
  const start = baseNs + BigInt(n) * 3_000_000_000n;
  const ns = (ms: number): bigint => start + BigInt(ms) * 1_000_000n;
  // in the order of their ends, children first, as an SDK's batch span processor exports them
  const order = specs.map((_, i) => i).sort((x, y) => specs[x]!.to - specs[y]!.to);
  return order.map((i) => {
    const s = specs[i]!;
    return {
      traceId,
      spanId: ids[i],
      parentSpanId: s.parent === null ? undefined : ids[s.parent],
      name: s.name,
      kind: s.kind,
      startTimeUnixNano: ns(s.from).toString(),
      endTimeUnixNano: ns(s.to).toString(),
      attributes: attrs(s.attributes),
      events: s.error
        ? [
            {
              timeUnixNano: ns(s.to).toString(),
              name: 'exception',
              attributes: attrs({ 'exception.type': 'TimeoutError', 'exception.message': s.error }),
            },
          ]
        : [],
      status: s.error ? { code: 2, message: s.error } : { code: 1 },
    };
  });
}

/**
 * `spans` spans (rounded up to whole traces) in bodies of about `spansPerBody` spans (whole
 * traces), one resource group per body routed to both receivers' projects.
 */
export function buildOtlpWorkload(label: string, spans: number, spansPerBody: number, seed: number): OtlpWorkload {
  const rand = prng(seed);
  const project = `bench/${label}`;
  const phoenixProject = `bench-${label}`;
  const tracesPerBody = Math.max(1, Math.round(spansPerBody / SPANS_PER_TRACE));
  const traces = Math.ceil(spans / SPANS_PER_TRACE);
  const baseNs = BigInt(Date.UTC(2026, 5, 1)) * 1_000_000n;
  const resource = {
    attributes: attrs({
      'service.name': 'support-agent',
      'telemetry.sdk.language': 'python',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.version': '1.38.0',
      'wandb.entity': project.split('/')[0],
      'wandb.project': project.split('/')[1],
      'openinference.project.name': phoenixProject,
    }),
  };
  const bodies: Buffer[] = [];
  for (let first = 0; first < traces; first += tracesPerBody) {
    const spanObjects: Array<Record<string, unknown>> = [];
    for (let n = first; n < Math.min(traces, first + tracesPerBody); n += 1)
      spanObjects.push(...encodeTrace(n + seed * 1_000_000, rand, baseNs));
    const scope = { name: 'openinference.instrumentation.openai', version: '0.1.30' };
    bodies.push(
      Buffer.from(encodeOtlpProtobuf({ resourceSpans: [{ resource, scopeSpans: [{ scope, spans: spanObjects }] }] })),
    );
  }
  const bytes = bodies.reduce((sum, b) => sum + b.length, 0);
  const total = traces * SPANS_PER_TRACE;
  return {
    project,
    phoenixProject,
    bodies,
    spans: total,
    spansPerBody: tracesPerBody * SPANS_PER_TRACE,
    bytesPerSpan: bytes / total,
  };
}
