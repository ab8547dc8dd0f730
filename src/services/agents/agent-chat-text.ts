import type { AgentMessage } from '../../store/agent-types.js';

/** Text rules of the chat projection (docs/spec/agents.md §9.2 "Text rules"). */

const HIDDEN_PARTS = new Set(['reasoning', 'uri', 'blob', 'file']);
const NOT_USER = new Set(['assistant', 'system', 'tool', 'tool_call', 'tool_result']);

/** Display text of a message content: the text parts of a JSON part array, else the content itself. */
export function displayText(content: string): string {
  if (!content.startsWith('[')) return content;
  let parts: unknown;
  try {
    parts = JSON.parse(content);
  } catch {
    return content;
  }
  if (!Array.isArray(parts)) return content;
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (typeof part === 'object' && part !== null) {
      const p = part as Record<string, unknown>;
      if (typeof p.type === 'string' && HIDDEN_PARTS.has(p.type)) continue;
      if (typeof p.content === 'string') texts.push(p.content);
      else if (typeof p.text === 'string') texts.push(p.text);
    }
  }
  return texts.join('\n');
}

/** Output text of a span: display texts of its non-user output messages, non-empty ones joined by a blank line. */
export function outputText(messages: AgentMessage[]): string {
  return messages
    .filter((m) => m.role !== 'user')
    .map((m) => displayText(m.content))
    .filter((t) => t !== '')
    .join('\n\n');
}

/** User texts of a message list: role `user` ones, else those of no other known role. */
export function userTexts(messages: AgentMessage[]): string[] {
  const of = (list: AgentMessage[]) => list.map((m) => displayText(m.content)).filter((t) => t !== '');
  const users = of(messages.filter((m) => m.role === 'user'));
  return users.length > 0 ? users : of(messages.filter((m) => !NOT_USER.has(m.role)));
}

/** The trailing run: the messages after the last one of an assistant, system or tool role. */
export function trailingRun(messages: AgentMessage[]): AgentMessage[] {
  let last = -1;
  messages.forEach((m, i) => {
    if (NOT_USER.has(m.role)) last = i;
  });
  return messages.slice(last + 1);
}
