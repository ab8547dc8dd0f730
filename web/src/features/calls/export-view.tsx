import { useRef, useState } from 'react';
import type { CallsRequest } from '../../api/calls.js';
import { downloadExport } from '../../api/export.js';
import { viewExportSnippets, type ExportFormat } from '../../lib/export-code.js';
import { SnippetBlock } from '../../ui/snippet-block.js';

/** "Export…": the calls this view shows (every page, same filters and order) as CSV or JSON Lines, and the code that does the same. */
export function ExportView({ req }: { req: CallsRequest | null }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const download = () => {
    if (!req) return;
    setState({ busy: true, error: null });
    downloadExport(req, format).then(
      () => setState({ busy: false, error: null }),
      (e: Error) => setState({ busy: false, error: e.message }),
    );
  };
  return (
    <>
      <button type="button" disabled={!req} onClick={() => ref.current?.showModal()}>
        Export…
      </button>
      <dialog ref={ref} className="shortcuts export-dialog" aria-labelledby="export-dialog-title">
        <h2 id="export-dialog-title">Export these calls</h2>
        <p className="muted small">
          Every call this view matches, with its filters and order, feedback and costs — not only the rows loaded.
        </p>
        <fieldset className="export-format">
          <legend>Format</legend>
          {(['csv', 'jsonl'] as const).map((f) => (
            <label key={f}>
              <input type="radio" name="export-format" checked={format === f} onChange={() => setFormat(f)} />{' '}
              {f === 'csv' ? 'CSV' : 'JSON Lines'}
            </label>
          ))}
        </fieldset>
        {state.error && (
          <p role="alert" className="error-text">
            Could not export: {state.error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="primary" disabled={!req || state.busy} onClick={download}>
            {state.busy ? 'Exporting…' : 'Download'}
          </button>
          <button type="button" onClick={() => ref.current?.close()}>
            Close
          </button>
        </div>
        {req && (
          <details className="export-code">
            <summary>The same from code</summary>
            {viewExportSnippets(req, format, window.location.origin).map((s) => (
              <SnippetBlock key={s.id} snippet={s} />
            ))}
          </details>
        )}
      </dialog>
    </>
  );
}
