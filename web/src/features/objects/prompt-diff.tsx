import { useMemo } from 'react';
import type { ChatMessage } from '../../lib/chat.js';
import { diffMessages, type MessageChange } from '../../lib/prompt-diff.js';
import { DiffLines } from './diff-lines.js';

const KIND_LABEL: Record<MessageChange['kind'], string> = {
  same: 'unchanged',
  added: 'added',
  removed: 'removed',
  changed: 'edited',
};

function position(c: MessageChange, from: string, to: string): string {
  if (c.kind === 'added') return `${to} #${c.to}`;
  if (c.kind === 'removed') return `${from} #${c.from}`;
  return c.from === c.to ? `#${c.to}` : `${from} #${c.from} → ${to} #${c.to}`;
}

/** Two prompt versions, message by message: what was added, removed or edited, with the edits line by line. */
export function PromptDiff(props: { from: string; to: string; left: ChatMessage[]; right: ChatMessage[] }) {
  const { from, to } = props;
  const changes = useMemo(() => diffMessages(props.left, props.right), [props.left, props.right]);
  const count = (k: MessageChange['kind']) => changes.filter((c) => c.kind === k).length;
  const label = `Message changes from ${from} to ${to}`;
  return (
    <section aria-labelledby="diff-h">
      <h2 id="diff-h">
        Changes from {from} to {to}
      </h2>
      {changes.every((c) => c.kind === 'same') ? (
        <p>The two versions have the same messages.</p>
      ) : (
        <p className="muted">
          {count('changed')} edited, {count('added')} added, {count('removed')} removed, {count('same')} unchanged
        </p>
      )}
      <ol className="prompt-diff" aria-label={label}>
        {changes.map((c, i) => (
          <li key={i} className={`prompt-diff-message prompt-diff-${c.kind}`}>
            <div className="prompt-diff-head">
              <span className="chat-role">{c.role}</span>
              <span className="muted small">{position(c, from, to)}</span>
              <span className="prompt-diff-kind">{KIND_LABEL[c.kind]}</span>
            </div>
            <pre className="code-diff">
              {/* a removed or added message says so in its head; an edit marks each changed line */}
              <DiffLines lines={c.lines} announce={c.kind === 'changed'} />
            </pre>
          </li>
        ))}
      </ol>
    </section>
  );
}
