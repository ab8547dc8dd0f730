import { indexedObjectsToArrays, isObject, isTruthy, lookup, setOwn } from './attribute-tree.js';
import { chatInputs, chatOutput, type SpanEvent } from './chat-messages.js';
import type { OtelJson, OtelJsonObject } from './otlp-model.js';

/** Semantic-convention extraction of docs/spec/otel-service-queues.md §A.5: inputs, output, usage and call attributes. */

const INPUT_KEYS = [
  'ai.prompt',
  'gen_ai.prompt',
  'input.value',
  'mlflow.spanInputs',
  'gen_ai.input.messages',
  'pydantic_ai.all_messages',
  'traceloop.entity.input',
  'gcp.vertex.agent.tool_call_args',
  'gcp.vertex.agent.llm_request',
  'events.gen_ai.user.message',
  'input',
  'inputs',
];

const OUTPUT_KEYS = [
  'ai.response',
  'gen_ai.completion',
  'output.value',
  'gen_ai.output.messages',
  'mlflow.spanOutputs',
  'final_result',
  'gen_ai.content.completion',
  'traceloop.entity.output',
  'gcp.vertex.agent.tool_response',
  'gcp.vertex.agent.llm_response',
  'events.gen_ai.choice',
  'output',
  'outputs',
];

const ATTRIBUTE_KEYS: Array<[string, string[]]> = [
  ['system', ['gen_ai.system', 'llm.system', 'gen_ai.system_instructions', 'system_prompt']],
  ['kind', ['weave.span.kind', 'traceloop.span.kind', 'openinference.span.kind']],
  ['model', ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'ai.model.id']],
  ['provider', ['llm.provider', 'ai.model.provider']],
  ['model_parameters', ['gen_ai.request', 'llm.invocation_parameters']],
  ['agent', ['gen_ai.agent.name']],
  ['tools', ['gen_ai.agent.tools']],
  ['operation', ['gen_ai.operation.name']],
  // our choice: OpenInference's user id, metadata and tags, so the calls table can filter on
  // `attributes.user_id` (the session id becomes the thread id, span-call.ts)
  ['user_id', ['user.id']],
  ['metadata', ['metadata']],
  ['tags', ['tag.tags']],
];

export interface Usage {
  input_tokens: OtelJson;
  output_tokens: OtelJson;
  prompt_tokens: OtelJson;
  completion_tokens: OtelJson;
  total_tokens: OtelJson;
  requests: null;
  /** Present only when the span reports them (our choice: the six keys of §A.7 stay as they are). */
  cache_read_input_tokens?: OtelJson;
  cache_creation_input_tokens?: OtelJson;
}

/**
 * Prompt-cache token counts, under the names the usage roll-ups read (docs/spec/calls.md §2.10, §6.3):
 * OTel GenAI, its deprecated underscore form (OpenLLMetry), OpenInference, Vercel AI SDK.
 */
const CACHE_KEYS: Array<['cache_read_input_tokens' | 'cache_creation_input_tokens', string[]]> = [
  [
    'cache_read_input_tokens',
    [
      'gen_ai.usage.cache_read.input_tokens',
      'gen_ai.usage.cache_read_input_tokens',
      'llm.token_count.prompt_details.cache_read',
      'ai.usage.cachedInputTokens',
    ],
  ],
  [
    'cache_creation_input_tokens',
    [
      'gen_ai.usage.cache_creation.input_tokens',
      'gen_ai.usage.cache_creation_input_tokens',
      'llm.token_count.prompt_details.cache_write',
    ],
  ],
];

export interface Extracted {
  inputs: OtelJsonObject;
  output: OtelJson;
  usage: Usage;
  /** The recognised attributes (before the fallback to the whole tree): the usage key reads them (§A.7). */
  recognised: OtelJsonObject;
  attributes: OtelJsonObject;
}

/** The span's attributes plus its events tree (`events.<name>` → list of attribute objects). */
export interface SpanTrees {
  attributes: OtelJsonObject;
  events: OtelJsonObject;
  /** The span's events in order (chat messages sent as events keep their order); none when absent. */
  eventList?: SpanEvent[];
}

/** First truthy candidate; span attributes win over the events tree for the same key. */
export function firstTruthy(trees: SpanTrees, keys: string[]): { key: string; value: OtelJson } | null {
  for (const key of keys) {
    const own = lookup(trees.attributes, key);
    if (isTruthy(own)) return { key, value: own as OtelJson };
    if (key.startsWith('events.')) {
      const fromEvents = lookup(trees.events, key.slice('events.'.length));
      if (isTruthy(fromEvents)) return { key, value: fromEvents as OtelJson };
    }
  }
  return null;
}

/** Integers given as numbers or digit strings become numbers; anything else stays as given. */
function usageValue(value: OtelJson | undefined): OtelJson {
  if (value === undefined) return null;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) {
    const n = BigInt(value.trim());
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }
  return value;
}

function isInt(value: OtelJson): value is number | bigint {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
}

function sum(a: number | bigint, b: number | bigint): number | bigint {
  const total = BigInt(a) + BigInt(b);
  return total <= BigInt(Number.MAX_SAFE_INTEGER) && total >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(total) : total;
}

export function extractUsage(trees: SpanTrees): Usage {
  const pick = (...keys: string[]): OtelJson => usageValue(firstTruthy(trees, keys)?.value);
  const usage: Usage = {
    input_tokens: pick('gen_ai.usage.input_tokens'),
    output_tokens: pick('gen_ai.usage.output_tokens'),
    prompt_tokens: pick('gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'ai.usage.promptTokens'),
    completion_tokens: pick(
      'gen_ai.usage.completion_tokens',
      'llm.token_count.completion',
      'ai.usage.completionTokens',
    ),
    total_tokens: pick('llm.usage.total_tokens', 'llm.token_count.total'),
    requests: null,
  };
  for (const [name, keys] of CACHE_KEYS) {
    const value = pick(...keys);
    if (value !== null) usage[name] = value;
  }
  if (usage.total_tokens === null) {
    if (isInt(usage.prompt_tokens) && isInt(usage.completion_tokens))
      usage.total_tokens = sum(usage.prompt_tokens, usage.completion_tokens);
    else if (isInt(usage.input_tokens) && isInt(usage.output_tokens))
      usage.total_tokens = sum(usage.input_tokens, usage.output_tokens);
  }
  return usage;
}

function extractInputs(trees: SpanTrees): OtelJsonObject | null {
  const chat = chatInputs(trees.attributes, trees.eventList ?? []);
  if (chat !== null) return chat;
  const match = firstTruthy(trees, INPUT_KEYS);
  if (match === null) return null;
  const value = indexedObjectsToArrays(match.value);
  // de-nesting of the generic keys (§A.5)
  if ((match.key === 'input' || match.key === 'inputs') && isObject(value)) return value;
  return { [match.key]: value };
}

function extractOutput(trees: SpanTrees): { value: OtelJson } | null {
  const chat = chatOutput(trees.attributes, trees.eventList ?? []);
  if (chat !== null) return { value: chat };
  const match = firstTruthy(trees, OUTPUT_KEYS);
  if (match === null) return null;
  const value = indexedObjectsToArrays(match.value);
  if (match.key === 'output' || match.key === 'outputs') return { value };
  return { value: { [match.key]: value } };
}

function extractAttributes(trees: SpanTrees): OtelJsonObject {
  const attributes: OtelJsonObject = {};
  for (const [name, keys] of ATTRIBUTE_KEYS) {
    const match = firstTruthy(trees, keys);
    if (match !== null) attributes[name] = indexedObjectsToArrays(match.value);
  }
  // our choice: a `wandb.attributes` that is not an object is ignored
  const extra = lookup(trees.attributes, 'wandb.attributes');
  if (isObject(extra)) {
    for (const [key, value] of Object.entries(extra)) {
      setOwn(attributes, key, indexedObjectsToArrays(value));
    }
  }
  return attributes;
}

/** §A.5, including the fallback: with nothing recognised, `attributes` is the whole tree. */
export function extractSemantics(trees: SpanTrees): Extracted {
  const inputs = extractInputs(trees);
  const output = extractOutput(trees);
  const usage = extractUsage(trees);
  const attributes = extractAttributes(trees);
  const usageFound = Object.values(usage).some((v) => v !== null);
  const nothing = inputs === null && output === null && !usageFound && Object.keys(attributes).length === 0;
  return {
    inputs: inputs ?? {},
    output: output === null ? {} : output.value,
    usage,
    recognised: attributes,
    attributes: nothing ? trees.attributes : attributes,
  };
}
