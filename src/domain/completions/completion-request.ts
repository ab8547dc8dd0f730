import { isRecord, type JsonRecord } from '../eval-results/types.js';
import { fillTemplate } from '../server-eval/llm-template.js';

/**
 * The pure half of `/completions/create` (the playground's run): which of Weave's
 * `CompletionsCreateRequestInputs` go to the provider, how a prompt's messages and `template_vars`
 * combine with the request's own, and what the recorded call keeps as its inputs.
 */

/** Inputs that are Weave's or the proxy's own, never sent to the provider as they are. */
const NOT_FOR_PROVIDER = new Set([
  'model',
  'messages',
  'prompt',
  'template_vars',
  'stream',
  'stream_options',
  'timeout',
  'extra_headers',
  'api_version',
]);

/** The request's own fields without the unset (null) ones, as Weave's `exclude_none` dump. */
export function withoutNulls(inputs: Readonly<JsonRecord>): JsonRecord {
  return Object.fromEntries(Object.entries(inputs).filter(([, value]) => value !== null && value !== undefined));
}

/** The chat-completions body for the provider: every OpenAI parameter given, with `messages`. */
export function providerBody(inputs: Readonly<JsonRecord>, messages: readonly unknown[]): JsonRecord {
  const body: JsonRecord = {};
  for (const [key, value] of Object.entries(withoutNulls(inputs))) if (!NOT_FOR_PROVIDER.has(key)) body[key] = value;
  body.messages = [...messages];
  return body;
}

function fillContent(content: unknown, vars: Readonly<JsonRecord>): unknown {
  if (typeof content === 'string') return fillTemplate(content, vars);
  if (Array.isArray(content))
    return content.map((part) =>
      isRecord(part) && typeof part.text === 'string' ? { ...part, text: fillTemplate(part.text, vars) } : part,
    );
  return content;
}

/**
 * The messages sent: the prompt's messages first, then the request's, each message kept whole
 * (tool calls, names) with `{name}` placeholders of its text filled from `template_vars`.
 */
export function combinedMessages(
  promptMessages: readonly unknown[],
  messages: readonly unknown[],
  templateVars: Readonly<JsonRecord> | null,
): unknown[] {
  const all = [...promptMessages, ...messages];
  if (templateVars === null) return all;
  return all.map((message) =>
    isRecord(message) && message.content !== undefined
      ? { ...message, content: fillContent(message.content, templateVars) }
      : message,
  );
}
