import type { LineChange } from '../../lib/diff.js';

const SIGN = { same: ' ', added: '+', removed: '-' } as const;

/**
 * Lines of a diff inside a `pre.code-diff`: each marked with its sign (hidden from screen readers)
 * and, with `announce`, a spoken "added:" or "removed:" on each changed line.
 */
export function DiffLines({ lines, announce }: { lines: readonly LineChange[]; announce: boolean }) {
  return (
    <>
      {lines.map((l, i) => (
        <div key={i} className={`diff-line diff-line-${l.kind}`}>
          <span aria-hidden="true">{SIGN[l.kind]} </span>
          {announce && l.kind !== 'same' && <span className="sr-only">{l.kind}: </span>}
          {l.text}
        </div>
      ))}
    </>
  );
}
