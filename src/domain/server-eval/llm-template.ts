import { isRecord, type JsonRecord } from '../eval-results/types.js';

/**
 * The pure half of `LLMStructuredCompletionModel.predict` and `LLMAsAJudgeScorer.score`
 * (docs/spec/evaluations.md §6.3): template substitution, the chat request, and reading the answer.
 */

export interface ChatMessage extends JsonRecord {
  role: string;
  content: unknown;
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * Python `str.format`-like substitution: `{name}` takes `vars[name]` (strings as they are, other
 * values as JSON), `{{`/`}}` are literal braces, and an unknown placeholder is left untouched
 * (our choice, where Python raises KeyError).
 */
export function fillTemplate(template: string, vars: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    return name !== undefined && Object.hasOwn(vars, name) ? asText(vars[name]) : match;
  });
}

function fillContent(content: unknown, vars: Readonly<Record<string, unknown>>): unknown {
  if (typeof content === 'string') return fillTemplate(content, vars);
  if (Array.isArray(content))
    return content.map((part) =>
      isRecord(part) && typeof part.text === 'string' ? { ...part, text: fillTemplate(part.text, vars) } : part,
    );
  return content;
}

/** Template messages with placeholders filled; fields other than role/content/name/... are dropped. */
export function fillMessages(template: readonly unknown[], vars: Readonly<Record<string, unknown>>): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of template) {
    if (!isRecord(message) || typeof message.role !== 'string') continue;
    const filled: ChatMessage = { role: message.role, content: fillContent(message.content ?? null, vars) };
    for (const key of ['name', 'function_call', 'tool_call_id'] as const)
      if (message[key] !== undefined && message[key] !== null) filled[key] = message[key];
    out.push(filled);
  }
  return out;
}

/** `user_input`: a string is one user message, a list is messages (a bare string in it is a user turn). */
export function userInputMessages(userInput: unknown): ChatMessage[] {
  if (userInput === undefined || userInput === null) return [];
  if (typeof userInput === 'string') return [{ role: 'user', content: userInput }];
  if (Array.isArray(userInput))
    return userInput.flatMap((m): ChatMessage[] => {
      if (typeof m === 'string') return [{ role: 'user', content: m }];
      if (isRecord(m) && typeof m.role === 'string') return [{ ...m, role: m.role, content: m.content ?? null }];
      return [];
    });
  return [{ role: 'user', content: asText(userInput) }];
}

export type ResponseFormat = 'json_object' | 'text';

/** `json_object`, legacy `json` → json_object; `text` or unset → text (our choice for unset). */
export function responseFormatOf(value: unknown): ResponseFormat {
  return value === 'json_object' || value === 'json' ? 'json_object' : 'text';
}

const PARAM_NAMES = ['temperature', 'top_p', 'max_tokens', 'presence_penalty', 'frequency_penalty', 'stop'] as const;

/**
 * The chat-completions body (minus `model`) for the given messages and params: `default_params`
 * with a row's `config` laid over it; `n_times` → `n`; `response_format` → `{"type": ...}`.
 */
export function chatRequestBody(messages: ChatMessage[], params: JsonRecord): JsonRecord {
  const body: JsonRecord = { messages };
  for (const name of PARAM_NAMES) if (params[name] !== undefined && params[name] !== null) body[name] = params[name];
  if (typeof params.n_times === 'number') body.n = params.n_times;
  if (Array.isArray(params.functions) && params.functions.length > 0) body.functions = params.functions;
  body.response_format = { type: responseFormatOf(params.response_format) };
  return body;
}

export class CompletionParseError extends Error {}

/** The first choice's content: parsed JSON for json_object (a parse failure is a row error), else the text. */
export function parseCompletion(response: unknown, format: ResponseFormat): unknown {
  const choices = isRecord(response) && Array.isArray(response.choices) ? response.choices : [];
  const first: unknown = choices[0];
  const message = isRecord(first) && isRecord(first.message) ? first.message : null;
  if (message === null) throw new CompletionParseError('The provider answered without a choice');
  const content = typeof message.content === 'string' ? message.content : '';
  if (format === 'text') return content;
  try {
    return JSON.parse(stripFence(content));
  } catch {
    throw new CompletionParseError(`The model's answer is not valid JSON: ${content.slice(0, 200)}`);
  }
}

/** Some providers wrap JSON-mode answers in a Markdown code fence. */
function stripFence(text: string): string {
  const match = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return match?.[1] ?? text;
}

/** `usage` of a completion, keyed by model as calls carry it in `summary.usage` (calls spec). */
export function usageSummary(model: string, response: unknown): JsonRecord {
  const usage = isRecord(response) && isRecord(response.usage) ? response.usage : null;
  if (usage === null) return {};
  const requests = { requests: 1 };
  return { usage: { [model]: { ...requests, ...usage } } };
}
