/**
 * Two prompt versions' messages compared message by message: the messages both have, those one
 * of them lacks, and the ones edited in place with a line diff of their text.
 */
import type { ChatMessage } from './chat.js';
import { diffLines, type LineChange } from './diff.js';

export interface MessageChange {
  kind: 'same' | 'added' | 'removed' | 'changed';
  /** The role in the newer version (the older one's for a removed message). */
  role: string;
  /** The older version's role, when an edit changed it. */
  oldRole?: string;
  /** Position in the older and the newer version (1-based), where the message is in it. */
  from?: number;
  to?: number;
  /** The text, line by line: all `same` for an unchanged message, all added or removed for the others. */
  lines: LineChange[];
}

/** A message's text as the diff reads it: its text parts, then one line per tool call. */
export function messageText(m: ChatMessage): string {
  const text = m.parts.map((p) => (p.kind === 'image' ? `[image] ${p.text}` : p.text)).join('\n');
  const tools = m.toolCalls.map((t) => `→ ${t.name}(${t.arguments})`);
  return [text, ...tools].filter((s) => s !== '').join('\n');
}

const linesOf = (text: string, kind: LineChange['kind']): LineChange[] =>
  text.split('\n').map((line) => ({ kind, text: line }));

/**
 * Messages matched by role and text (longest common subsequence); between two matches, removed
 * and added messages pair up in order as edits, and the rest stay removed or added.
 */
export function diffMessages(left: readonly ChatMessage[], right: readonly ChatMessage[]): MessageChange[] {
  const a = left.map((m) => ({ role: m.role, text: messageText(m) }));
  const b = right.map((m) => ({ role: m.role, text: messageText(m) }));
  const same = (i: number, j: number) => a[i]!.role === b[j]!.role && a[i]!.text === b[j]!.text;
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = same(i, j) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);

  const out: MessageChange[] = [];
  let removed: number[] = [];
  let added: number[] = [];
  const flush = () => {
    const pairs = Math.min(removed.length, added.length);
    for (let k = 0; k < pairs; k++) {
      const l = a[removed[k]!]!;
      const r = b[added[k]!]!;
      out.push({
        kind: 'changed',
        role: r.role,
        ...(l.role !== r.role ? { oldRole: l.role } : {}),
        from: removed[k]! + 1,
        to: added[k]! + 1,
        lines: diffLines(l.text, r.text),
      });
    }
    for (const i of removed.slice(pairs))
      out.push({ kind: 'removed', role: a[i]!.role, from: i + 1, lines: linesOf(a[i]!.text, 'removed') });
    for (const j of added.slice(pairs))
      out.push({ kind: 'added', role: b[j]!.role, to: j + 1, lines: linesOf(b[j]!.text, 'added') });
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && same(i, j)) {
      flush();
      out.push({ kind: 'same', role: b[j]!.role, from: i + 1, to: j + 1, lines: linesOf(b[j]!.text, 'same') });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) removed.push(i++);
    else added.push(j++);
  }
  flush();
  return out;
}
