import type {
  AgentCustomAttrs,
  AgentFloatColumn,
  AgentIntColumn,
  AgentSpanRecord,
  AgentStringColumn,
} from '../../store/agent-types.js';
import { attributeTree, isObject, lookup, PathConflictError, stringifyJson } from './attribute-tree.js';
import {
  asFloat,
  asInt,
  asString,
  asStringList,
  normaliseMessages,
  reasoningOf,
  systemInstructions,
} from './agent-values.js';
import { SPAN_KIND_NAMES, STATUS_CODE_NAMES, type OtelJson, type OtelJsonObject, type OtlpSpan } from './otlp-model.js';
import { otelDump, type SpanGroupContext } from './span-call.js';

/** The OTLP span → agent span mapping of docs/spec/agents.md §2.2–§2.5 (no IO). */

/** Canonical `weave.*` key, then its OTel spellings: `pair('agent.name')` = weave.agent.name, gen_ai.agent.name. */
const pair = (suffix: string): string[] => [`weave.${suffix}`, `gen_ai.${suffix}`];

const STRING_KEYS: Record<AgentStringColumn, string[]> = {
  operation_name: pair('operation.name'),
  provider_name: [...pair('provider.name'), 'weave.system', 'gen_ai.system'],
  agent_name: pair('agent.name'),
  agent_id: pair('agent.id'),
  agent_description: pair('agent.description'),
  agent_version: pair('agent.version'),
  request_model: pair('request.model'),
  response_model: pair('response.model'),
  response_id: pair('response.id'),
  conversation_id: pair('conversation.id'),
  conversation_name: pair('conversation.name'),
  tool_name: pair('tool.name'),
  tool_type: pair('tool.type'),
  tool_call_id: pair('tool.call.id'),
  error_type: ['weave.error.type', 'error.type'],
  output_type: pair('output.type'),
  server_address: ['weave.server.address', 'server.address'],
  eval_run_id: ['weave.eval.run_id'],
  eval_predict_and_score_call_id: ['weave.eval.predict_and_score_call_id'],
  eval_kind: ['weave.eval.kind'],
  eval_row_digest: ['weave.eval.row_digest'],
  eval_example_id: ['weave.eval.example_id'],
  eval_evaluation_name: ['weave.eval.evaluation_name'],
  parent_call_id: ['weave.parent_call.id'],
  parent_call_trace_id: ['weave.parent_call.trace_id'],
};

const INT_KEYS: Record<AgentIntColumn, string[]> = {
  input_tokens: pair('usage.input_tokens'),
  output_tokens: pair('usage.output_tokens'),
  reasoning_tokens: [...pair('usage.reasoning_tokens'), 'gen_ai.usage.reasoning.output_tokens'],
  cache_creation_input_tokens: pair('usage.cache_creation.input_tokens'),
  cache_read_input_tokens: pair('usage.cache_read.input_tokens'),
  request_max_tokens: pair('request.max_tokens'),
  request_seed: pair('request.seed'),
  request_choice_count: pair('request.choice.count'),
  compaction_items_before: ['weave.compaction.items_before'],
  compaction_items_after: ['weave.compaction.items_after'],
  server_port: ['weave.server.port', 'server.port'],
};

const FLOAT_KEYS: Record<AgentFloatColumn, string[]> = {
  request_temperature: pair('request.temperature'),
  request_top_p: pair('request.top_p'),
  request_frequency_penalty: pair('request.frequency_penalty'),
  request_presence_penalty: pair('request.presence_penalty'),
};

const OTHER_KEYS = {
  tool_description: pair('tool.description'),
  tool_definitions: pair('tool.definitions'),
  tool_call_arguments: pair('tool.call.arguments'),
  tool_call_result: pair('tool.call.result'),
  finish_reasons: pair('response.finish_reasons'),
  request_stop_sequences: pair('request.stop_sequences'),
  input_messages: ['weave.input.messages', 'gen_ai.input.messages', 'weave.prompt', 'gen_ai.prompt'],
  output_messages: ['weave.output.messages', 'gen_ai.output.messages', 'weave.completion', 'gen_ai.completion'],
  system_instructions: ['weave.system_instructions', 'gen_ai.system_instructions'],
  compaction_summary: ['weave.compaction.summary'],
  content_refs: ['weave.content_refs'],
  artifact_refs: ['weave.artifact_refs'],
  object_refs: ['weave.object_refs'],
  eval_trial_index: ['weave.eval.trial_index'],
};

/** §2.3 "known keys": never custom attributes. */
export const KNOWN_KEYS: ReadonlySet<string> = new Set(
  [
    ...Object.values(STRING_KEYS),
    ...Object.values(INT_KEYS),
    ...Object.values(FLOAT_KEYS),
    ...Object.values(OTHER_KEYS),
  ]
    .flat()
    .concat(['weave.reasoning_content'])
    .filter((k) => k !== 'weave.prompt' && k !== 'gen_ai.prompt'),
);

/** Every name a filter may use for a column: the keys above and their short forms without the prefix (§3.3). */
export function semconvAliases(): Map<string, string> {
  const out = new Map<string, string>();
  const add = (column: string, keys: string[]) => {
    for (const key of keys) {
      out.set(key, column);
      out.set(key.replace(/^(weave|gen_ai)\./, ''), column);
    }
  };
  for (const table of [STRING_KEYS, INT_KEYS, FLOAT_KEYS, OTHER_KEYS])
    for (const [column, keys] of Object.entries(table)) add(column, keys);
  return out;
}

const OPERATION_PREFIXES = [
  'chat',
  'invoke_agent',
  'execute_tool',
  'generate_content',
  'text_completion',
  'embeddings',
  'create_agent',
  'retrieval',
];
const MAX_CUSTOM = 1024;
const MAX_TEXT = 262_144;

/** §2.2 step 2: the first candidate present and not null (presence, not truthiness). */
function first(tree: OtelJsonObject, keys: string[]): OtelJson | undefined {
  for (const key of keys) {
    const value = lookup(tree, key);
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** §2.2 json text: the attribute exactly as sent when it came as a string, else compact JSON. */
function jsonText(span: OtlpSpan['attributes'], tree: OtelJsonObject, keys: string[]): string {
  for (const key of keys) {
    const value = lookup(tree, key);
    if (value === undefined || value === null) continue;
    const sent = span.find((kv) => kv.key === key);
    if (sent !== undefined && typeof sent.value === 'string') return sent.value;
    return typeof value === 'string' ? value : stringifyJson(value);
  }
  return '';
}

function eventText(span: OtlpSpan, eventName: string, key: string): string {
  for (const event of span.events) {
    if (event.name !== eventName) continue;
    const kv = event.attributes.find((a) => a.key === key);
    if (kv === undefined || kv.value === null) continue;
    return typeof kv.value === 'string' ? kv.value : stringifyJson(kv.value);
  }
  return '';
}

function eventValue(span: OtlpSpan, eventName: string, key: string): OtelJson | undefined {
  const event = span.events.find((e) => e.name === eventName && e.attributes.some((a) => a.key === key));
  return event === undefined ? undefined : lookup(attributeTree(event.attributes), key);
}

/** §2.5: cuts a long text so that it plus the marker is exactly the limit (code points). */
function capText(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const points = [...text];
  if (points.length <= MAX_TEXT) return text;
  const marker = `...[truncated from ${points.length} chars]`;
  return points.slice(0, MAX_TEXT - marker.length).join('') + marker;
}

function isKnown(path: string): boolean {
  if (KNOWN_KEYS.has(path)) return true;
  for (let at = path.indexOf('.'); at > 0; at = path.indexOf('.', at + 1))
    if (KNOWN_KEYS.has(path.slice(0, at))) return true;
  return false;
}

/** §2.5: the typed custom-attribute maps, depth-first over the attribute tree, at most 1024 entries. */
export function customAttrs(tree: OtelJsonObject): AgentCustomAttrs {
  const out: AgentCustomAttrs = {
    custom_attrs_string: {},
    custom_attrs_int: {},
    custom_attrs_float: {},
    custom_attrs_bool: {},
  };
  let count = 0;
  const walk = (node: OtelJsonObject, prefix: string): void => {
    for (const [key, value] of Object.entries(node)) {
      if (count >= MAX_CUSTOM) return;
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (isObject(value)) {
        walk(value, path);
        continue;
      }
      if (value === null || value === '' || isKnown(path)) continue;
      if (typeof value === 'boolean') out.custom_attrs_bool[path] = value;
      else if (typeof value === 'bigint') out.custom_attrs_int[path] = Number(value);
      else if (typeof value === 'number') {
        // our choice: the decoders keep no OTLP type, so an integral doubleValue lands in the int map
        if (Number.isInteger(value)) out.custom_attrs_int[path] = value;
        else if (Number.isFinite(value)) out.custom_attrs_float[path] = value;
        else continue;
      } else out.custom_attrs_string[path] = capText(typeof value === 'string' ? value : stringifyJson(value));
      count++;
    }
  };
  walk(tree, '');
  return out;
}

export type AgentOutcome = { ok: true; span: AgentSpanRecord } | { ok: false; reason: string };

/** Whether some attribute leaf path starts with `gen_ai.` or `weave.` (§1 R3). */
export function hasGenAiKey(span: OtlpSpan): boolean {
  return span.attributes.some(
    (kv) =>
      kv.key.startsWith('gen_ai.') ||
      kv.key.startsWith('weave.') ||
      ((kv.key === 'gen_ai' || kv.key === 'weave') && isObject(kv.value)),
  );
}

function operationOf(tree: OtelJsonObject, spanName: string): string {
  const own = asString(first(tree, STRING_KEYS.operation_name));
  if (own !== '') return own;
  const lower = spanName.toLowerCase();
  return OPERATION_PREFIXES.find((p) => lower.startsWith(p)) ?? '';
}

function agentNameOf(tree: OtelJsonObject, spanName: string): string {
  const own = asString(first(tree, STRING_KEYS.agent_name));
  if (own !== '') return own;
  return spanName.toLowerCase().startsWith('invoke_agent ') ? spanName.slice('invoke_agent '.length).trim() : '';
}

function columns(tree: OtelJsonObject, span: OtlpSpan) {
  const strings = {} as Record<AgentStringColumn, string>;
  for (const [column, keys] of Object.entries(STRING_KEYS) as [AgentStringColumn, string[]][])
    strings[column] = asString(first(tree, keys));
  strings.operation_name = operationOf(tree, span.name);
  strings.agent_name = agentNameOf(tree, span.name);
  strings.provider_name = strings.provider_name.toLowerCase();
  const numbers = {} as Record<AgentIntColumn | AgentFloatColumn, number>;
  for (const [column, keys] of Object.entries(INT_KEYS) as [AgentIntColumn, string[]][])
    numbers[column] = asInt(first(tree, keys));
  for (const [column, keys] of Object.entries(FLOAT_KEYS) as [AgentFloatColumn, string[]][])
    numbers[column] = asFloat(first(tree, keys));
  return { ...strings, ...numbers };
}

function details(tree: OtelJsonObject, span: OtlpSpan): AgentSpanRecord['details'] {
  const sent = span.attributes;
  const output =
    first(tree, OTHER_KEYS.output_messages) ?? eventValue(span, 'gen_ai.content.completion', 'gen_ai.completion');
  const args = jsonText(sent, tree, OTHER_KEYS.tool_call_arguments);
  const result = jsonText(sent, tree, OTHER_KEYS.tool_call_result);
  const reasoning = reasoningOf(output);
  return {
    reasoning_content: reasoning !== '' ? reasoning : asString(lookup(tree, 'weave.reasoning_content')),
    tool_description: asString(first(tree, OTHER_KEYS.tool_description)),
    tool_definitions: jsonText(sent, tree, OTHER_KEYS.tool_definitions),
    input_messages: normaliseMessages(first(tree, OTHER_KEYS.input_messages), 'user'),
    output_messages: normaliseMessages(output, 'assistant'),
    system_instructions: systemInstructions(first(tree, OTHER_KEYS.system_instructions)),
    tool_call_arguments: args !== '' ? args : eventText(span, 'gen_ai.tool.input', 'gen_ai.tool.call.arguments'),
    tool_call_result: result !== '' ? result : eventText(span, 'gen_ai.tool.output', 'gen_ai.tool.call.result'),
    compaction_summary: asString(first(tree, OTHER_KEYS.compaction_summary)),
    content_refs: asStringList(first(tree, OTHER_KEYS.content_refs)),
    artifact_refs: asStringList(first(tree, OTHER_KEYS.artifact_refs)),
    object_refs: asStringList(first(tree, OTHER_KEYS.object_refs)),
  };
}

function validIds(span: OtlpSpan): boolean {
  return (
    /^[0-9a-f]{32}$/.test(span.traceId) &&
    /^[0-9a-f]{16}$/.test(span.spanId) &&
    (span.parentSpanId === '' || /^[0-9a-f]{16}$/.test(span.parentSpanId))
  );
}

/**
 * One span as an agent span (§2.3); `wb_user_id` is filled by the service. A path conflict gives the
 * bare conflict text, bad ids `Invalid span identifiers`, anything else `Extraction failed …` (§2.1).
 */
export function spanToAgentSpan(span: OtlpSpan, ctx: SpanGroupContext): AgentOutcome {
  if (!validIds(span)) return { ok: false, reason: 'Invalid span identifiers' };
  let tree: OtelJsonObject;
  try {
    tree = attributeTree(span.attributes);
  } catch (error) {
    if (error instanceof PathConflictError) return { ok: false, reason: error.message };
    throw error;
  }
  try {
    const startedAt = Number(span.startTimeUnixNano / 1000n);
    const endedAt = span.endTimeUnixNano === 0n ? null : Number(span.endTimeUnixNano / 1000n);
    const trial = first(tree, OTHER_KEYS.eval_trial_index);
    const dump = otelDump(span, ctx, tree, startedAt, endedAt ?? startedAt);
    return {
      ok: true,
      span: {
        project_id: ctx.projectId,
        trace_id: span.traceId,
        span_id: span.spanId,
        parent_span_id: span.parentSpanId,
        span_name: span.name,
        span_kind: SPAN_KIND_NAMES[span.kind] ?? 'UNSPECIFIED',
        started_at: startedAt,
        ended_at: endedAt,
        status_code: STATUS_CODE_NAMES[span.statusCode] ?? 'UNSET',
        status_message: span.statusMessage,
        ...columns(tree, span),
        finish_reasons: asStringList(first(tree, OTHER_KEYS.finish_reasons)),
        request_stop_sequences: asStringList(first(tree, OTHER_KEYS.request_stop_sequences)),
        eval_trial_index: trial === undefined ? null : asInt(trial),
        wb_user_id: '',
        wb_run_id: ctx.wbRunId ?? '',
        wb_run_step: 0,
        wb_run_step_end: 0,
        details: details(tree, span),
        custom: customAttrs(tree),
        raw_span_dump: stringifyJson(dump),
      },
    };
  } catch (error) {
    return { ok: false, reason: `Extraction failed for span ${span.spanId}: ${(error as Error).name}` };
  }
}
