import type { ReactNode } from 'react';
import { parseBlocks, safeHref } from '../lib/markdown.js';

/**
 * Markdown from trace data as React elements, never as HTML: headings, paragraphs, lists, quotes,
 * fenced code, emphasis, inline code and links. Raw HTML in the text stays text. Links allow only
 * http, https and mailto and open with `rel="noopener noreferrer"`; images show as their alt text
 * and address (never loaded). Oversized input falls back to `<pre>` (UI-STYLE.md "Nothing runs as HTML").
 */

/** Above this many characters the text is shown as it is. */
const MAX_MARKDOWN = 200_000;

const INLINE =
  /(`[^`\n]+`)|(\*\*[^*\n]+\*\*|(?<!\w)__[^_\n]+__(?!\w))|(\*[^*\n]+\*|(?<!\w)_[^_\n]+_(?!\w))|(!?\[[^\]\n]*\]\([^)\s]+\))/;

function inline(text: string, key = 0): ReactNode[] {
  const out: ReactNode[] = [];
  let rest = text;
  let k = key;
  while (rest !== '') {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push(rest);
      break;
    }
    if (m.index > 0) out.push(rest.slice(0, m.index));
    const token = m[0];
    if (m[1]) out.push(<code key={k++}>{token.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong key={k++}>{inline(token.slice(2, -2), k * 100)}</strong>);
    else if (m[3]) out.push(<em key={k++}>{inline(token.slice(1, -1), k * 100)}</em>);
    else {
      const image = token.startsWith('!');
      const label = token.slice(image ? 2 : 1, token.indexOf(']('));
      const url = token.slice(token.indexOf('](') + 2, -1);
      const href = safeHref(url);
      if (image || href === null) out.push(token);
      else
        out.push(
          <a key={k++} href={href} target="_blank" rel="noopener noreferrer">
            {inline(label, k * 100)}
          </a>,
        );
    }
    rest = rest.slice(m.index + token.length);
  }
  return out;
}

export function Markdown({ text, label }: { text: string; label: string }) {
  if (text.length > MAX_MARKDOWN) return <pre className="md-fallback">{text}</pre>;
  return (
    <div className="markdown" role="document" aria-label={label}>
      {parseBlocks(text).map((b, i) => {
        switch (b.kind) {
          case 'heading': {
            // headings inside a value sit below the page's own (h1–h3)
            const H = `h${Math.min(6, b.level + 3)}` as 'h4' | 'h5' | 'h6';
            return <H key={i}>{inline(b.text)}</H>;
          }
          case 'p':
            return <p key={i}>{inline(b.text)}</p>;
          case 'quote':
            return <blockquote key={i}>{inline(b.text)}</blockquote>;
          case 'code':
            return (
              <pre key={i}>
                <code>{b.text}</code>
              </pre>
            );
          case 'ul':
          case 'ol': {
            const L = b.kind;
            return (
              <L key={i}>
                {b.items.map((item, j) => (
                  <li key={j}>{inline(item)}</li>
                ))}
              </L>
            );
          }
        }
      })}
    </div>
  );
}
