/** Pure helpers of the agents pages: subagent nesting of a turn's chat, search hit text, highlights. */

export interface NestedMessage<M> {
  message: M;
  /** 0 for the turn's own agent and the user, 1 for a subagent it started, and so on. */
  depth: number;
}

/**
 * Gives each message of a turn its subagent depth. Messages come in time order with the agent that
 * produced them; an `agent_start` of an agent not already open opens a level below the current one,
 * and a later message of an agent higher up closes the levels under it. The user's messages stay at
 * the depth of the agent that is open (a subagent's input is shown inside it).
 */
export function nestTurn<M extends { type: string; agent_name: string }>(messages: M[]): NestedMessage<M>[] {
  const open: string[] = [];
  return messages.map((m) => {
    if (m.type === 'user_message') return { message: m, depth: Math.max(0, open.length - 1) };
    const at = open.lastIndexOf(m.agent_name);
    if (m.type === 'agent_start') {
      if (at >= 0) open.length = at + 1;
      else open.push(m.agent_name);
      return { message: m, depth: open.length - 1 };
    }
    if (at >= 0) open.length = at + 1;
    else if (open.length === 0) open.push(m.agent_name);
    return { message: m, depth: Math.max(0, open.length - 1) };
  });
}

/**
 * The readable text of a search hit's preview: the server sends the message's parts as JSON text
 * (`[{"type":"text","content":"…"}]`); text parts are joined, a tool call reads `name(arguments)`,
 * a tool response its JSON, and anything else is shown as it came.
 */
export function hitText(preview: string): string {
  try {
    const parts: unknown = JSON.parse(preview);
    const list = Array.isArray(parts) ? parts : [parts];
    const texts = list
      .map((p) => {
        if (typeof p === 'string') return p;
        if (p && typeof p === 'object') {
          const o = p as Record<string, unknown>;
          if (typeof o.content === 'string') return o.content;
          if (typeof o.text === 'string') return o.text;
          if (o.type === 'tool_call' && typeof o.name === 'string')
            return `${o.name}(${JSON.stringify(o.arguments ?? {})})`;
          if (o.type === 'tool_call_response' && 'response' in o) return JSON.stringify(o.response);
        }
        return null;
      })
      .filter((t): t is string => t != null);
    return texts.length > 0 ? texts.join('\n') : preview;
  } catch {
    return preview;
  }
}

/**
 * Splits `text` into plain and matching pieces for `<mark>`, case-sensitive like the server's
 * message search (docs/spec/agents.md §8).
 */
export function highlight(text: string, needle: string): { text: string; hit: boolean }[] {
  if (needle === '') return [{ text, hit: false }];
  const out: { text: string; hit: boolean }[] = [];
  const n = needle;
  let from = 0;
  for (let i = text.indexOf(n); i >= 0; i = text.indexOf(n, i + n.length)) {
    if (i > from) out.push({ text: text.slice(from, i), hit: false });
    out.push({ text: text.slice(i, i + n.length), hit: true });
    from = i + n.length;
  }
  if (from < text.length) out.push({ text: text.slice(from), hit: false });
  return out;
}

/** Pretty-prints a JSON string (tool arguments, results); other text unchanged. */
export function prettyJsonText(s: string | null): string {
  if (s == null) return '';
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}

/** The fields the spans explorer groups by. */
export const SPAN_GROUPS = [
  { key: 'agent_name', label: 'Agent' },
  { key: 'request_model', label: 'Model' },
  { key: 'tool_name', label: 'Tool' },
  { key: 'operation_name', label: 'Operation' },
] as const;

/**
 * Turns `/agents/spans/stats` rows (one per time bucket and group) into one row per bucket with a
 * value per group, the shape of a stacked chart; `(none)` names the empty group value. Without a
 * group column every bucket has one value under `value`.
 */
export function pivotStats(
  rows: Record<string, string | number | null>[],
  column: string,
  group: string | null,
): { data: Record<string, string | number>[]; groups: string[] } {
  const byTime = new Map<string, Record<string, string | number>>();
  const groups: string[] = [];
  for (const r of rows) {
    const t = String(r.timestamp);
    const row = byTime.get(t) ?? { timestamp: t };
    byTime.set(t, row);
    const g = group == null ? 'value' : r[group] == null || r[group] === '' ? '(none)' : String(r[group]);
    if (!groups.includes(g)) groups.push(g);
    const v = r[column];
    row[g] = (Number(row[g] ?? 0) || 0) + (typeof v === 'number' ? v : 0);
  }
  return { data: [...byTime.values()], groups };
}

/** Custom attribute columns in the URL: `source:key` joined by commas. */
export function parseAttrColumns(s: string | undefined): { source: CustomSource; key: string }[] {
  if (!s) return [];
  const out: { source: CustomSource; key: string }[] = [];
  for (const part of s.split(',')) {
    const at = part.indexOf(':');
    const source = part.slice(0, at);
    if (at > 0 && (CUSTOM_SOURCES as readonly string[]).includes(source))
      out.push({ source: source as CustomSource, key: part.slice(at + 1) });
  }
  return out;
}

export const CUSTOM_SOURCES = [
  'custom_attrs_string',
  'custom_attrs_int',
  'custom_attrs_float',
  'custom_attrs_bool',
] as const;
export type CustomSource = (typeof CUSTOM_SOURCES)[number];
