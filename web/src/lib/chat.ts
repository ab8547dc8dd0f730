import { isRecord } from './is-record.js';

/**
 * Detects chat conversations in call inputs and outputs: OpenAI-style `messages` lists and
 * completion `choices`. Returns plain data; the view renders every part as text.
 */

export interface ChatPart {
  kind: 'text' | 'image' | 'other';
  text: string;
}

export interface ChatMessage {
  role: string;
  name?: string;
  parts: ChatPart[];
  toolCalls: { name: string; arguments: string }[];
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'function', 'developer', 'model']);

function parts(content: unknown): ChatPart[] | null {
  if (content == null) return [];
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return null;
  const out: ChatPart[] = [];
  for (const p of content) {
    if (typeof p === 'string') out.push({ kind: 'text', text: p });
    else if (isRecord(p) && typeof p.text === 'string') out.push({ kind: 'text', text: p.text });
    else if (isRecord(p) && (p.type === 'image_url' || p.type === 'input_image' || p.type === 'image')) {
      const u = isRecord(p.image_url) ? p.image_url.url : (p.image_url ?? p.url);
      out.push({ kind: 'image', text: typeof u === 'string' ? u : JSON.stringify(p) });
    } else out.push({ kind: 'other', text: JSON.stringify(p) });
  }
  return out;
}

function toolCalls(m: Record<string, unknown>): ChatMessage['toolCalls'] {
  const tc = m.tool_calls;
  if (!Array.isArray(tc)) return [];
  return tc.filter(isRecord).map((t) => {
    const f = isRecord(t.function) ? t.function : t;
    const args = f.arguments;
    return { name: String(f.name ?? 'tool'), arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
  });
}

/** One message in OpenAI form (`{role, content}`), or null. */
export function asMessage(v: unknown): ChatMessage | null {
  if (!isRecord(v) || typeof v.role !== 'string' || !ROLES.has(v.role)) return null;
  if (!('content' in v) && !('tool_calls' in v)) return null;
  const p = parts(v.content);
  if (!p) return null;
  return { role: v.role, name: typeof v.name === 'string' ? v.name : undefined, parts: p, toolCalls: toolCalls(v) };
}

/** A list where every item is a message. */
export function asMessages(v: unknown): ChatMessage[] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const out: ChatMessage[] = [];
  for (const item of v) {
    const m = asMessage(item);
    if (!m) return null;
    out.push(m);
  }
  return out;
}

/** Chat messages in call inputs: `inputs.messages` (OpenAI / LiteLLM / Anthropic style). */
export function chatFromInputs(inputs: unknown): ChatMessage[] | null {
  if (!isRecord(inputs)) return null;
  const msgs = asMessages(inputs.messages);
  if (!msgs) return null;
  if (typeof inputs.system === 'string')
    return [{ role: 'system', parts: [{ kind: 'text', text: inputs.system }], toolCalls: [] }, ...msgs];
  return msgs;
}

/** Chat messages in a call output: `choices[].message`, a single message, or a message list. */
export function chatFromOutput(output: unknown): ChatMessage[] | null {
  if (isRecord(output) && Array.isArray(output.choices)) {
    const msgs = output.choices.map((c) => (isRecord(c) ? asMessage(c.message ?? c.delta) : null));
    return msgs.length > 0 && msgs.every((m) => m) ? (msgs as ChatMessage[]) : null;
  }
  // Anthropic: {role: "assistant", content: [{type: "text", text}]}
  const one = asMessage(output);
  if (one) return [one];
  return asMessages(output);
}
