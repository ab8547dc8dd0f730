/**
 * The built-in policy's chat template (docs/spec/training.md §9 step 2): every message becomes
 * `<role marker> <UTF-8 bytes of its text> <end of turn>`, after a BOS and, when tools are offered,
 * a `<tools>` block holding their JSON. Tool calls of an assistant turn follow its text as JSON.
 * Inference (the prompt of a completion) and training render through the same functions, so the
 * tokens a Choice was sampled after are exactly the tokens it is trained after.
 */
import { ASSISTANT, BOS, END_OF_TURN, SENTINEL, SYSTEM, TOOL, TOOLS, USER, encodeText } from './tokenizer.js';

/** A chat message reduced to what the template renders. */
export interface PlainMessage {
  role: string;
  content: string;
  /** Tool calls (and a legacy function_call), rendered as JSON after the content. */
  toolCalls?: unknown[];
  /** Render the content as the §9.3 sentinel (a trainable turn whose sampled tokens go there). */
  sentinel?: boolean;
}

const ROLE_MARKERS: Record<string, number> = {
  system: SYSTEM,
  developer: SYSTEM,
  user: USER,
  assistant: ASSISTANT,
  tool: TOOL,
  function: TOOL,
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Text of an OpenAI content value: a string, null, or a list of parts (§5.4). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (!isRecord(part)) return '';
      if (typeof part.text === 'string') return part.text;
      if (typeof part.refusal === 'string') return part.refusal;
      // Non-text parts cannot be read by a byte model; a marker keeps their position visible.
      return typeof part.type === 'string' ? `[${part.type}]` : '';
    })
    .join('');
}

/** A message param or a Choice's message as a PlainMessage (§9 step 2: null content → ""). */
export function toPlainMessage(raw: unknown): PlainMessage {
  const m = isRecord(raw) ? raw : {};
  const role = typeof m.role === 'string' ? m.role : 'user';
  const toolCalls: unknown[] = Array.isArray(m.tool_calls) ? [...m.tool_calls] : [];
  if (isRecord(m.function_call)) toolCalls.push({ type: 'function', function: m.function_call });
  let content = contentText(m.content);
  if (content === '' && typeof m.refusal === 'string') content = m.refusal;
  return toolCalls.length > 0 ? { role, content, toolCalls } : { role, content };
}

function toolCallsText(calls: unknown[] | undefined): string {
  return calls && calls.length > 0 ? `\n${JSON.stringify(calls)}` : '';
}

/** Tokens of one message, end of turn included. */
export function renderMessage(message: PlainMessage): number[] {
  const marker = ROLE_MARKERS[message.role] ?? USER;
  const body = message.sentinel ? [SENTINEL] : encodeText(message.content);
  return [marker, ...body, ...encodeText(toolCallsText(message.toolCalls)), END_OF_TURN];
}

/** Tokens of the conversation start: BOS and the tool definitions, if any. */
export function renderPreamble(tools: unknown): number[] {
  const out = [BOS];
  if (Array.isArray(tools) && tools.length > 0) out.push(TOOLS, ...encodeText(JSON.stringify(tools)), END_OF_TURN);
  return out;
}

/** Renders a whole chat; with `generationPrompt` it ends with the assistant marker to sample after. */
export function renderChat(messages: readonly PlainMessage[], tools: unknown, generationPrompt: boolean): number[] {
  const out = renderPreamble(tools);
  for (const m of messages) out.push(...renderMessage(m));
  if (generationPrompt) out.push(ASSISTANT);
  return out;
}
