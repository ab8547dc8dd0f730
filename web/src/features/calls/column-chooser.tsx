import { useMemo, useState } from 'react';
import { useCallsSample, type CallsRequest } from '../../api/calls.js';
import { BUILTIN_COLUMNS, columnLabel, isColumnId, leafColumns, MAX_COLUMNS, moveColumn } from '../../lib/columns.js';

interface Props {
  req: CallsRequest | null;
  cols: readonly string[];
  pin: readonly string[];
  onChange: (next: { cols: string[]; pin: string[] }) => void;
}

/**
 * The traces table's columns: show, hide, pin and reorder the shown ones; add a built-in column,
 * an input or output leaf found in a sample of the view's calls, or any field path typed in.
 */
export function ColumnChooser({ req, cols, pin, onChange }: Props) {
  const [open, setOpen] = useState(false);
  const [find, setFind] = useState('');
  const [typed, setTyped] = useState('');
  const sample = useCallsSample(req, open);
  const shown = new Set(cols);
  const available = useMemo(() => {
    const leaves = leafColumns(sample.data ?? []);
    const all = [...BUILTIN_COLUMNS.map((c) => c.id), ...leaves].filter((id) => !cols.includes(id));
    const needle = find.trim().toLowerCase();
    return needle ? all.filter((id) => columnLabel(id).toLowerCase().includes(needle)) : all;
  }, [sample.data, cols, find]);

  const set = (nextCols: string[], nextPin: string[] = pin.filter((p) => nextCols.includes(p))) =>
    onChange({ cols: nextCols, pin: nextPin });
  const show = (id: string) => cols.length < MAX_COLUMNS && set([...cols, id]);
  const typedOk = isColumnId(typed.trim()) && !shown.has(typed.trim());

  return (
    <div className="column-chooser">
      <button type="button" aria-expanded={open} aria-controls="column-chooser" onClick={() => setOpen(!open)}>
        Columns ({cols.length})
      </button>
      {open && (
        <section id="column-chooser" className="column-panel" aria-label="Columns">
          <h2 className="sr-only">Columns</h2>
          <div className="column-lists">
            <div>
              <h3>Shown</h3>
              <ol className="column-list" aria-label="Shown columns">
                {cols.map((id, i) => {
                  const pinned = pin.includes(id);
                  const label = columnLabel(id);
                  return (
                    <li key={id}>
                      <span className="column-name mono small">{label}</span>
                      <button
                        type="button"
                        aria-pressed={pinned}
                        aria-label={`Pin ${label}`}
                        onClick={() => set([...cols], pinned ? pin.filter((p) => p !== id) : [...pin, id])}
                      >
                        Pin
                      </button>
                      <button
                        type="button"
                        aria-label={`Move ${label} up`}
                        disabled={i === 0}
                        onClick={() => set(moveColumn(cols, id, -1), [...pin])}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        aria-label={`Move ${label} down`}
                        disabled={i === cols.length - 1}
                        onClick={() => set(moveColumn(cols, id, 1), [...pin])}
                      >
                        ↓
                      </button>
                      <button
                        type="button"
                        aria-label={`Hide ${label}`}
                        disabled={cols.length === 1}
                        onClick={() => set(cols.filter((c) => c !== id))}
                      >
                        Hide
                      </button>
                    </li>
                  );
                })}
              </ol>
            </div>
            <div>
              <h3>Available</h3>
              <label className="field">
                <span>Find a column</span>
                <input value={find} onChange={(e) => setFind(e.target.value)} placeholder="inputs.…" />
              </label>
              {sample.isPending && <p className="muted small">Looking at the view's inputs and outputs…</p>}
              {sample.isError && (
                <p className="error-text small" role="alert">
                  Could not read a sample of calls: {sample.error.message}
                </p>
              )}
              <ul className="column-list" aria-label="Available columns">
                {available.slice(0, 200).map((id) => (
                  <li key={id}>
                    <span className="column-name mono small">{columnLabel(id)}</span>
                    <button
                      type="button"
                      aria-label={`Show ${columnLabel(id)}`}
                      disabled={cols.length >= MAX_COLUMNS}
                      onClick={() => show(id)}
                    >
                      Show
                    </button>
                  </li>
                ))}
              </ul>
              <form
                className="inline-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (!typedOk) return;
                  show(typed.trim());
                  setTyped('');
                }}
              >
                <label className="field">
                  <span>Field path</span>
                  <input value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="inputs.user.id" />
                </label>
                <button type="submit" disabled={!typedOk}>
                  Add column
                </button>
              </form>
            </div>
          </div>
        </section>
      )}
    </div>
  );
}
