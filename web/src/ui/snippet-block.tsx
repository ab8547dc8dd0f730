import { useState } from 'react';
import type { UseSnippet } from '../lib/use-code.js';

/** A titled code block with its note and a copy button (the Use tab's and the export dialog's). */
export function SnippetBlock({ snippet }: { snippet: UseSnippet }) {
  const [copied, setCopied] = useState(false);
  const titleId = `use-${snippet.id}-title`;
  return (
    <section className="use-snippet" aria-labelledby={titleId}>
      <div className="use-snippet-head">
        <h3 id={titleId}>{snippet.title}</h3>
        <span className="muted small">{snippet.note}</span>
        <span className="spacer" />
        <button
          type="button"
          aria-label={`Copy ${snippet.title} code`}
          onClick={() =>
            void navigator.clipboard?.writeText(snippet.code).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            })
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre className="use-code" data-snippet={snippet.id} data-language={snippet.language} tabIndex={0}>
        <code>{snippet.code}</code>
      </pre>
    </section>
  );
}
