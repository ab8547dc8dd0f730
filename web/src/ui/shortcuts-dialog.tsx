import { useEffect, useRef } from 'react';
import { isTyping, SHORTCUTS } from '../lib/shortcuts.js';

/** The text fields a key focuses where the page has them (`data-shortcut`). */
const FOCUS_KEYS: Record<string, string> = { '/': 'filter', s: 'search' };

/**
 * `?` opens the list of shortcuts (a modal dialog: focus is trapped and restored); `/` focuses the
 * field filter and `s` the search box.
 */
export function ShortcutsDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      if (e.key === '?') {
        e.preventDefault();
        if (!ref.current?.open) ref.current?.showModal();
      } else if (FOCUS_KEYS[e.key]) {
        const el = document.querySelector<HTMLElement>(`[data-shortcut="${FOCUS_KEYS[e.key]}"]`);
        if (el) {
          e.preventDefault();
          el.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <dialog ref={ref} className="shortcuts" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table className="simple-table">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Action</th>
            <th scope="col">Where</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys}>
              <td>
                <kbd>{s.keys}</kbd>
              </td>
              <td>{s.action}</td>
              <td className="muted">{s.where}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="dialog">
        <button type="submit" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
