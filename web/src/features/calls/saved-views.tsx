import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useDeleteView, useSaveView, useSavedViews } from '../../api/saved-views.js';
import {
  BUILTIN_VIEW,
  DEFAULT_VIEW_ID,
  newViewId,
  sameView,
  searchOfView,
  viewDefinition,
  type SavedView,
} from '../../lib/saved-views.js';
import type { TracesSearch } from '../../lib/query.js';

interface Props {
  projectId: string;
  search: TracesSearch;
  /** Replaces the whole page state (a view loaded); `replace` replaces the history entry too. */
  onLoad: (search: TracesSearch, replace?: boolean) => void;
}

const labelOf = (v: SavedView) => (v.object_id === DEFAULT_VIEW_ID ? `${v.label} (default)` : v.label);

/**
 * The traces page's saved views: pick one (its filters, sort and columns replace the page's), save
 * the page as a new view or over the one it came from, and make one the project's default.
 */
export function SavedViews({ projectId, search, onLoad }: Props) {
  const views = useSavedViews(projectId);
  const save = useSaveView(projectId);
  const remove = useDeleteView(projectId);
  const dialog = useRef<HTMLDialogElement>(null);
  const [label, setLabel] = useState('');
  const [asDefault, setAsDefault] = useState(false);
  const list = [...(views.data ?? [])].sort((a, b) =>
    a.object_id === DEFAULT_VIEW_ID ? -1 : b.object_id === DEFAULT_VIEW_ID ? 1 : a.label.localeCompare(b.label),
  );
  const current = list.find((v) => v.object_id === search.view) ?? null;
  const modified = current !== null && !sameView(searchOfView(current), search);
  // The page opened plain (no state in the URL): the project's default view, when it has one.
  const plain = Object.keys(search).length === 0;
  const fallback = list.find((v) => v.object_id === DEFAULT_VIEW_ID);
  useEffect(() => {
    if (plain && fallback) onLoad(searchOfView(fallback), true);
  }, [plain, fallback, onLoad]);

  const store = (objectId: string, viewLabel: string) => {
    let definition;
    try {
      definition = viewDefinition(projectId, search);
    } catch {
      return; // the field filter does not parse: the page shows why
    }
    save.mutate(
      { objectId, val: { view_type: 'traces', label: viewLabel, definition } },
      {
        onSuccess: () => {
          dialog.current?.close();
          onLoad({ ...search, view: objectId });
        },
      },
    );
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!label.trim()) return;
    store(asDefault ? DEFAULT_VIEW_ID : newViewId(), label.trim());
  };

  return (
    <div className="saved-views">
      <label className="field">
        <span>Saved view</span>
        <select
          value={current ? current.object_id : BUILTIN_VIEW}
          onChange={(e) => {
            const v = list.find((x) => x.object_id === e.target.value);
            onLoad(v ? searchOfView(v) : { view: BUILTIN_VIEW });
          }}
        >
          <option value={BUILTIN_VIEW}>All calls (built-in)</option>
          {list.map((v) => (
            <option key={v.object_id} value={v.object_id}>
              {labelOf(v)}
            </option>
          ))}
        </select>
      </label>
      {modified && <span className="muted small">modified</span>}
      {current && modified && (
        <button type="button" disabled={save.isPending} onClick={() => store(current.object_id, current.label)}>
          Update view
        </button>
      )}
      {current && (
        <button
          type="button"
          disabled={remove.isPending}
          onClick={() => {
            if (!window.confirm(`Delete the view “${current.label}” for everyone in ${projectId}?`)) return;
            remove.mutate(current.object_id, { onSuccess: () => onLoad({ ...search, view: BUILTIN_VIEW }) });
          }}
        >
          Delete view
        </button>
      )}
      <button
        type="button"
        onClick={() => {
          setLabel(current && modified ? `${current.label} (copy)` : '');
          setAsDefault(false);
          dialog.current?.showModal();
        }}
      >
        Save view…
      </button>
      {remove.isError && (
        <span role="alert" className="error-text small">
          Could not delete the view: {remove.error.message}
        </span>
      )}
      {views.isError && (
        <span role="alert" className="error-text small">
          Views unavailable: {views.error.message}
        </span>
      )}
      <dialog ref={dialog} className="shortcuts" aria-labelledby="view-dialog-title">
        <h2 id="view-dialog-title">Save this view</h2>
        <p className="muted small">
          Its filters, sort and columns, shared with everyone in the project (a Weave <code>SavedView</code> object).
        </p>
        <form onSubmit={submit} className="stack-form">
          <label htmlFor="view-name">View name</label>
          <input id="view-name" value={label} onChange={(e) => setLabel(e.target.value)} autoFocus required />
          <label>
            <input type="checkbox" checked={asDefault} onChange={(e) => setAsDefault(e.target.checked)} /> Make it the
            project's default view (replaces the current default)
          </label>
          {save.isError && (
            <p role="alert" className="error-text">
              Could not save the view: {save.error.message}
            </p>
          )}
          <div className="dialog-actions">
            <button type="submit" className="primary" disabled={save.isPending || !label.trim()}>
              Save view
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </div>
  );
}
