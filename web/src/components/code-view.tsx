import { useEffect, useRef } from 'react';
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';
import { syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { python } from '@codemirror/lang-python';
import { json } from '@codemirror/lang-json';

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
          syntaxHighlighting(defaultHighlightStyle),
          language === 'python' ? python() : language === 'json' ? json() : [],
        ],
      }),
    });
    return () => view.destroy();
  }, [text, language, label]);
  return <div className="code-view" ref={host} />;
}
