import { isObject, isTruthy, lookup, stringifyJson } from './attribute-tree.js';
import type { OtelJson, OtelJsonObject } from './otlp-model.js';

/**
 * Chat messages of an LLM span as an OpenAI-like chat completion: inputs `{"messages": [...]}`,
 * output `{"choices": [{"index", "message", "finish_reason"}]}` — the shape a chat renderer
 * recognises (Weave's UI shows a call as a chat when `inputs.messages` is a list of messages).
 * Our choice, ahead of the §A.5 candidate keys. Read from, in order:
 * - OpenInference (Arize Phoenix): `llm.input_messages.N.message.*`, `llm.output_messages.N.message.*`
 *   (`role`, `content`, `contents.M.message_content.{type,text,image.image.url}`, `name`,
 *   `tool_call_id`, `tool_calls.K.tool_call.{id,function.name,function.arguments}`);
 * - GenAI semantic conventions: `gen_ai.input.messages` / `gen_ai.output.messages` (role + `parts`),
 *   with `gen_ai.system_instructions` as a leading system message;
 * - their older indexed form `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` (OpenLLMetry);
 * - span events `gen_ai.{system,user,assistant,tool}.message` and `gen_ai.choice`, in event order.
 */

export interface SpanEvent {
  name: string;
  attributes: OtelJsonObject;
}

type Message = OtelJsonObject;

/** An array, or an object keyed by indices ("0", "1", …, any order or gaps) as a list; else []. */
function listOf(value: OtelJson | undefined): OtelJson[] {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return [];
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((k) => /^\d+$/.test(k))) return [];
  return Object.entries(value)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, item]) => item);
}

/** Message text: strings as they are; a value the attribute rules parsed as JSON (§A.3 step 2) back to text. */
function text(value: OtelJson | undefined): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : stringifyJson(value);
}

function toolCall(id: OtelJson | undefined, name: OtelJson | undefined, args: OtelJson | undefined): OtelJsonObject {
  const call: OtelJsonObject = { type: 'function', function: { name: text(name) ?? '', arguments: text(args) ?? '' } };
  if (isTruthy(id)) call.id = text(id);
  return call;
}

/** A message with only the fields that are present; `content` is always there (null for tool-call turns). */
function message(role: OtelJson | undefined, content: OtelJson, extra: OtelJsonObject = {}): Message {
  const out: Message = { role: text(role) ?? 'user', content };
  for (const [key, value] of Object.entries(extra)) if (isTruthy(value)) out[key] = value;
  return out;
}

function openInferenceMessage(item: OtelJson): Message | null {
  const m = lookup(item, 'message');
  if (!isObject(m)) return null;
  const parts = listOf(m.contents).flatMap((part): OtelJson[] => {
    const c = lookup(part, 'message_content');
    if (!isObject(c)) return [];
    if (c.type === 'image')
      return [{ type: 'image_url', image_url: { url: text(lookup(c, 'image.image.url')) ?? '' } }];
    return [{ type: 'text', text: text(c.text) ?? '' }];
  });
  const toolCalls = listOf(m.tool_calls).map((t) =>
    toolCall(
      lookup(t, 'tool_call.id'),
      lookup(t, 'tool_call.function.name'),
      lookup(t, 'tool_call.function.arguments'),
    ),
  );
  const content = m.content !== undefined ? text(m.content) : parts.length > 0 ? parts : null;
  return message(m.role, content, { name: text(m.name), tool_call_id: text(m.tool_call_id), tool_calls: toolCalls });
}

/** OpenLLMetry's indexed `gen_ai.prompt.N` / `gen_ai.completion.N` entries, and GenAI event bodies. */
function flatMessage(item: OtelJson, defaultRole: string): Message | null {
  if (!isObject(item)) return item === undefined || item === null ? null : message(defaultRole, text(item));
  const toolCalls = listOf(item.tool_calls).map((t) =>
    toolCall(
      lookup(t, 'id'),
      lookup(t, 'function.name') ?? lookup(t, 'name'),
      lookup(t, 'function.arguments') ?? lookup(t, 'arguments'),
    ),
  );
  const content = Array.isArray(item.content) ? item.content : text(item.content);
  return message(item.role ?? defaultRole, content, {
    name: text(item.name),
    tool_call_id: text(item.tool_call_id ?? item.id),
    tool_calls: toolCalls,
  });
}

/** A GenAI `{role, parts: [...]}` message (semantic conventions ≥ 1.37). */
function partsMessage(item: OtelJson): Message | null {
  if (!isObject(item)) return null;
  const parts = listOf(item.parts);
  const texts: string[] = [];
  const toolCalls: OtelJson[] = [];
  let toolCallId: string | null = null;
  for (const part of parts) {
    if (!isObject(part)) continue;
    if (part.type === 'tool_call') toolCalls.push(toolCall(part.id, part.name, part.arguments));
    else if (part.type === 'tool_call_response') {
      toolCallId = text(part.id);
      texts.push(text(part.response) ?? '');
    } else if (part.content !== undefined) texts.push(text(part.content) ?? '');
  }
  return message(toolCallId !== null ? 'tool' : item.role, texts.length > 0 ? texts.join('\n') : null, {
    name: text(item.name),
    tool_call_id: toolCallId,
    tool_calls: toolCalls,
  });
}

function compact(messages: Array<Message | null>): Message[] {
  return messages.filter((m): m is Message => m !== null);
}

function asChoices(messages: Message[], finishReasons: OtelJson[]): OtelJsonObject | null {
  if (messages.length === 0) return null;
  return {
    choices: messages.map((m, index) => ({
      index,
      message: m.role === 'user' ? { ...m, role: 'assistant' } : { ...m },
      finish_reason: finishReasons[index] ?? null,
    })),
  };
}

const MESSAGE_EVENT_ROLES: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

function systemInstructions(tree: OtelJsonObject): Message[] {
  const value = lookup(tree, 'gen_ai.system_instructions');
  if (!isTruthy(value)) return [];
  if (typeof value === 'string') return [message('system', value)];
  const m = partsMessage({ role: 'system', parts: value ?? [] });
  return m === null ? [] : [m];
}

/** The chat inputs of a span, or null when it carries no messages. */
export function chatInputs(tree: OtelJsonObject, events: SpanEvent[]): OtelJsonObject | null {
  let messages = compact(listOf(lookup(tree, 'llm.input_messages')).map(openInferenceMessage));
  if (messages.length === 0) {
    const genAi = listOf(lookup(tree, 'gen_ai.input.messages'));
    if (genAi.length > 0) messages = [...systemInstructions(tree), ...compact(genAi.map(partsMessage))];
  }
  if (messages.length === 0)
    messages = compact(listOf(lookup(tree, 'gen_ai.prompt')).map((m) => flatMessage(m, 'user')));
  if (messages.length === 0)
    messages = compact(
      events
        .filter((e) => Object.hasOwn(MESSAGE_EVENT_ROLES, e.name))
        .map((e) => flatMessage(e.attributes, MESSAGE_EVENT_ROLES[e.name]!)),
    );
  return messages.length > 0 ? { messages } : null;
}

/** The chat output of a span as `{"choices": [...]}`, or null when it carries no output messages. */
export function chatOutput(tree: OtelJsonObject, events: SpanEvent[]): OtelJsonObject | null {
  const oi = listOf(lookup(tree, 'llm.output_messages'));
  const fromOi = compact(oi.map(openInferenceMessage));
  if (fromOi.length > 0) return asChoices(fromOi, []);
  const genAi = listOf(lookup(tree, 'gen_ai.output.messages')).filter(isObject);
  if (genAi.length > 0)
    return asChoices(
      compact(genAi.map(partsMessage)),
      genAi.map((m) => m.finish_reason ?? null),
    );
  const indexed = listOf(lookup(tree, 'gen_ai.completion'));
  if (indexed.length > 0)
    return asChoices(
      compact(indexed.map((m) => flatMessage(m, 'assistant'))),
      indexed.map((m) => (isObject(m) ? (m.finish_reason ?? null) : null)),
    );
  const choices = events.filter((e) => e.name === 'gen_ai.choice').map((e) => e.attributes);
  if (choices.length === 0) return null;
  return asChoices(
    compact(choices.map((c) => flatMessage(isObject(c.message) ? c.message : (c.content ?? null), 'assistant'))),
    choices.map((c) => c.finish_reason ?? null),
  );
}
