/**
 * The playground's variants (docs/playground.md): one model, its messages and its parameters each,
 * turned into a `/completions/create` request and read back from a call's inputs ("Open in
 * playground"). Pure, so the rules are tested without a browser.
 */
import { objectNameProblem } from './object-name.js';
import { isRecord } from './is-record.js';

export type ChatRole = 'system' | 'user' | 'assistant';
export const CHAT_ROLES: readonly ChatRole[] = ['system', 'user', 'assistant'];

export interface PlaygroundMessage {
  role: ChatRole;
  content: string;
}

export interface Variant {
  model: string;
  messages: PlaygroundMessage[];
  /** Kept as typed: an empty field sends nothing, so the provider's default applies. */
  temperature: string;
  maxTokens: string;
}

export const MAX_VARIANTS = 4;

export function emptyVariant(model = ''): Variant {
  return { model, messages: [{ role: 'user', content: '' }], temperature: '', maxTokens: '' };
}

/** A message's text: a string, or the text parts of an OpenAI content list. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
      .filter((text) => text !== '')
      .join('\n');
  return content == null ? '' : JSON.stringify(content);
}

function roleOf(role: unknown): ChatRole {
  return role === 'system' || role === 'assistant' ? role : 'user';
}

/** A variant from a chat call's inputs (`model`, `messages`, `temperature`, `max_tokens`); null when it has no messages. */
export function variantFromInputs(inputs: unknown): Variant | null {
  if (!isRecord(inputs) || !Array.isArray(inputs.messages) || inputs.messages.length === 0) return null;
  const messages = inputs.messages
    .filter(isRecord)
    .map((m) => ({ role: roleOf(m.role), content: contentText(m.content) }));
  if (messages.length === 0) return null;
  const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
  return {
    model: typeof inputs.model === 'string' ? inputs.model : '',
    messages,
    temperature: number(inputs.temperature),
    maxTokens: number(inputs.max_tokens ?? inputs.max_completion_tokens),
  };
}

/** A saved `MessagesPrompt` value's messages as a variant's, or null when it has none. */
export function messagesFromPrompt(val: unknown): PlaygroundMessage[] | null {
  if (!isRecord(val) || !Array.isArray(val.messages)) return null;
  const messages = val.messages
    .filter(isRecord)
    .map((m) => ({ role: roleOf(m.role), content: contentText(m.content) }));
  return messages.length > 0 ? messages : null;
}

/** What is wrong with a variant before it is sent, or null. */
export function variantProblem(v: Variant): string | null {
  if (v.model.trim() === '') return 'Choose a model';
  if (!v.messages.some((m) => m.content.trim() !== '')) return 'Write at least one message';
  if (v.temperature.trim() !== '') {
    const t = Number(v.temperature);
    if (!Number.isFinite(t) || t < 0 || t > 2) return 'Temperature is a number from 0 to 2';
  }
  if (v.maxTokens.trim() !== '') {
    const n = Number(v.maxTokens);
    if (!Number.isInteger(n) || n < 1) return 'Max tokens is a whole number of at least 1';
  }
  return null;
}

/** The `inputs` of `/completions/create` for a variant (call variantProblem first). */
export type CompletionInputs = {
  model: string;
  messages: PlaygroundMessage[];
  temperature?: number;
  max_tokens?: number;
};

export function completionInputs(v: Variant): CompletionInputs {
  const inputs: CompletionInputs = {
    model: v.model.trim(),
    messages: v.messages.filter((m) => m.content.trim() !== '').map((m) => ({ role: m.role, content: m.content })),
  };
  if (v.temperature.trim() !== '') inputs.temperature = Number(v.temperature);
  if (v.maxTokens.trim() !== '') inputs.max_tokens = Number(v.maxTokens);
  return inputs;
}

/** A `MessagesPrompt` object's value: the variant's messages, saved with Weave's class names. */
export function messagesPromptValue(v: Variant, name: string): Record<string, unknown> {
  return {
    _type: 'MessagesPrompt',
    _class_name: 'MessagesPrompt',
    _bases: ['Prompt', 'Object', 'BaseModel'],
    // the Python client's Prompt.from_obj reads both (weave.Object's own fields)
    name,
    description: null,
    messages: v.messages.filter((m) => m.content.trim() !== '').map((m) => ({ role: m.role, content: m.content })),
  };
}

/** An object id Weave accepts: letters, digits, `-`, `_` and `.`, at most 128. */
export function promptNameProblem(name: string): string | null {
  return objectNameProblem(name, 'prompt');
}

export interface CompletionOutcome {
  text: string | null;
  error: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** The first choice's text, the provider's error, and the usage of a `/completions/create` response. */
export function completionOutcome(response: unknown): CompletionOutcome {
  const r = isRecord(response) ? response : {};
  const error = r.error == null ? null : typeof r.error === 'string' ? r.error : JSON.stringify(r.error);
  const choice = Array.isArray(r.choices) && isRecord(r.choices[0]) ? r.choices[0] : null;
  const message = choice && isRecord(choice.message) ? choice.message : null;
  const usage = isRecord(r.usage) ? r.usage : {};
  const count = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    text: message ? contentText(message.content) : null,
    error,
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
  };
}

/** A streamed answer so far (`/completions/create_stream` lines folded one by one). */
export interface StreamedAnswer extends CompletionOutcome {
  callId: string | null;
}

export const EMPTY_STREAM: StreamedAnswer = {
  text: null,
  error: null,
  promptTokens: null,
  completionTokens: null,
  callId: null,
};

/**
 * One line of the stream folded in: `{_meta: {weave_call_id}}` names the recorded call, a
 * `chat.completion.chunk` adds its first choice's `delta.content` and may carry the usage,
 * `{error}` is the provider's failure.
 */
export function foldStreamLine(acc: StreamedAnswer, line: unknown): StreamedAnswer {
  if (!isRecord(line)) return acc;
  if (isRecord(line._meta) && typeof line._meta.weave_call_id === 'string')
    return { ...acc, callId: line._meta.weave_call_id };
  if (line.error != null)
    return { ...acc, error: typeof line.error === 'string' ? line.error : JSON.stringify(line.error) };
  const choice = Array.isArray(line.choices) && isRecord(line.choices[0]) ? line.choices[0] : null;
  const delta = choice && isRecord(choice.delta) ? choice.delta : null;
  const piece = delta && typeof delta.content === 'string' ? delta.content : '';
  const usage = isRecord(line.usage) ? line.usage : null;
  const count = (v: unknown, was: number | null) => (typeof v === 'number' ? v : was);
  return {
    ...acc,
    text: piece ? (acc.text ?? '') + piece : acc.text,
    promptTokens: usage ? count(usage.prompt_tokens, acc.promptTokens) : acc.promptTokens,
    completionTokens: usage ? count(usage.completion_tokens, acc.completionTokens) : acc.completionTokens,
  };
}
