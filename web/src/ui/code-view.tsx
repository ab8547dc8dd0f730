import { useEffect, useRef } from 'react';
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { python } from '@codemirror/lang-python';
import { json } from '@codemirror/lang-json';

/**
 * Token colours from CSS variables (styles.css), so both themes meet WCAG AA contrast; CodeMirror's
 * default style is made for a light background only.
 */
const highlight = HighlightStyle.define([
  {
    tag: [tags.keyword, tags.controlKeyword, tags.operatorKeyword, tags.definitionKeyword, tags.moduleKeyword],
    color: 'var(--code-keyword)',
  },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--code-string)' },
  { tag: [tags.number, tags.integer, tags.float], color: 'var(--code-number)' },
  { tag: [tags.bool, tags.null, tags.atom, tags.self], color: 'var(--code-atom)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--code-comment)', fontStyle: 'italic' },
  {
    tag: [tags.definition(tags.variableName), tags.function(tags.definition(tags.variableName)), tags.className],
    color: 'var(--code-def)',
  },
  { tag: [tags.propertyName, tags.attributeName], color: 'var(--code-property)' },
  { tag: tags.invalid, color: 'var(--err)' },
]);

/** Read-only CodeMirror view (loaded lazily: import this module with React.lazy). */
export default function CodeView({
  text,
  language,
  label,
}: {
  text: string;
  language: 'python' | 'json' | 'text';
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          syntaxHighlighting(highlight),
          language === 'python' ? python() : language === 'json' ? json() : [],
        ],
      }),
    });
    return () => view.destroy();
  }, [text, language, label]);
  return <div className="code-view" ref={host} />;
}
