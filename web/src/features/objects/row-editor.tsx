import { useEffect, useRef, useState, type FormEvent } from 'react';
import { cellSource, editorColumns, parseCell, type DatasetRow } from '../../lib/datasets.js';

/**
 * The dialog that edits one dataset row, a field per column. A column of strings takes text as
 * typed; other columns take JSON. An emptied field leaves the cell out of the row.
 */
export function RowEditor({
  title,
  columns,
  row,
  like,
  onSave,
  onClose,
}: {
  title: string;
  columns: string[];
  row: DatasetRow;
  /** A row whose value types the columns follow (the row itself, or the first stored row). */
  like: DatasetRow;
  onSave: (row: DatasetRow) => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const fields = editorColumns(columns, row);
  const [text, setText] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((c) => [c, cellSource(row[c])])),
  );
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: DatasetRow = {};
    for (const c of fields) {
      const parsed = parseCell(text[c] ?? '', like[c]);
      if (parsed && 'error' in parsed) return setProblem(`${c}: ${parsed.error}`);
      if (parsed) next[c] = parsed.value;
    }
    if (Object.keys(next).length === 0) return setProblem('A row needs at least one value');
    onSave(next);
  };
  return (
    <dialog ref={ref} className="shortcuts row-editor" aria-labelledby="row-editor-title" onClose={onClose}>
      <h2 id="row-editor-title">{title}</h2>
      <form onSubmit={submit} className="stack-form" noValidate>
        {fields.map((c, i) => (
          <div key={c} className="row-field">
            <label htmlFor={`row-field-${i}`}>
              {c}
              {typeof like[c] !== 'string' && like[c] !== undefined && <span className="muted small"> (JSON)</span>}
            </label>
            <textarea
              id={`row-field-${i}`}
              value={text[c] ?? ''}
              spellCheck={false}
              rows={Math.min(8, Math.max(2, (text[c] ?? '').split('\n').length))}
              onChange={(e) => setText((prev) => ({ ...prev, [c]: e.target.value }))}
            />
          </div>
        ))}
        {problem && (
          <p role="alert" className="error-text">
            {problem}
          </p>
        )}
        <div className="dialog-actions">
          <button type="submit" className="primary">
            Keep row
          </button>
          <button type="button" onClick={() => ref.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
