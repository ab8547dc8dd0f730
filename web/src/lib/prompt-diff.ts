/**
 * Two prompt versions' messages compared message by message: the messages both have, those one
 * of them lacks, and the ones edited in place with a line diff of their text.
 */
import type { ChatMessage } from './chat.js';
import { alignSequences, diffLines, type LineChange } from './diff.js';

export interface MessageChange {
  kind: 'same' | 'added' | 'removed' | 'changed';
  /** The message's role (an edit keeps it). */
  role: string;
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
 * Messages matched by role and text (`alignSequences`); between two matches, a removed
 * message and a later added one of the same role pair up in order as an edit, and the rest stay
 * removed or added.
 */
export function diffMessages(left: readonly ChatMessage[], right: readonly ChatMessage[]): MessageChange[] {
  const a = left.map((m) => ({ role: m.role, text: messageText(m) }));
  const b = right.map((m) => ({ role: m.role, text: messageText(m) }));
  const out: MessageChange[] = [];
  let removed: number[] = [];
  let added: number[] = [];
  const flush = () => {
    // a removed message and a later added one of the same role are one message edited
    const pairs: [number, number][] = [];
    let next = 0;
    for (const r of removed) {
      const k = added.findIndex((j, at) => at >= next && b[j]!.role === a[r]!.role);
      if (k < 0) continue;
      pairs.push([r, added[k]!]);
      next = k + 1;
    }
    const editedFrom = new Set(pairs.map(([r]) => r));
    const editedTo = new Set(pairs.map(([, j]) => j));
    for (const [r, j] of pairs)
      out.push({ kind: 'changed', role: b[j]!.role, from: r + 1, to: j + 1, lines: diffLines(a[r]!.text, b[j]!.text) });
    for (const r of removed.filter((r) => !editedFrom.has(r)))
      out.push({ kind: 'removed', role: a[r]!.role, from: r + 1, lines: linesOf(a[r]!.text, 'removed') });
    for (const j of added.filter((j) => !editedTo.has(j)))
      out.push({ kind: 'added', role: b[j]!.role, to: j + 1, lines: linesOf(b[j]!.text, 'added') });
    removed = [];
    added = [];
  };
  const sameMessage = (x: (typeof a)[number], y: (typeof b)[number]) => x.role === y.role && x.text === y.text;
  for (const step of alignSequences(a, b, sameMessage)) {
    if (step.kind === 'removed') removed.push(step.i);
    else if (step.kind === 'added') added.push(step.j);
    else {
      flush();
      out.push({
        kind: 'same',
        role: b[step.j]!.role,
        from: step.i + 1,
        to: step.j + 1,
        lines: linesOf(b[step.j]!.text, 'same'),
      });
    }
  }
  flush();
  return out;
}
