import { useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { TABLE_PAGE, useTableCount, useTablePages, type TableRow } from '../../api/objects.js';
import { formatInt, preview } from '../../lib/format.js';
import type { DatasetRow, RowEdits } from '../../lib/datasets.js';

const ROW_HEIGHT = 34;
const MAX_COLUMNS = 12;

/** Where a row being edited lives: the stored table (its index there) or the rows added since. */
export type RowTarget = { kind: 'stored' | 'added'; index: number };

/** Edit mode of the rows: the pending edits to show, and what the row buttons do. */
export interface RowEditing {
  edits: RowEdits;
  /** `like`: the row over the first stored row, whose value types a new value follows. */
  onEdit: (target: RowTarget, row: DatasetRow, columns: string[], like: DatasetRow) => void;
  onRemove: (target: RowTarget, removed: boolean) => void;
}

/**
 * A stored table's rows (a dataset's `rows`), virtualised over the table's full length: only the
 * pages of 200 rows that are on screen are fetched (`/table/query` offset/limit), so a 100k-row
 * dataset scrolls to any row without loading the rest. With `editing`, each row has Edit and Remove,
 * pending edits show in place and added rows after the last stored one.
 */
export function DatasetRows({
  projectId,
  digest,
  editing,
}: {
  projectId: string;
  digest: string;
  editing?: RowEditing;
}) {
  const count = useTableCount(projectId, digest);
  const stored = count.data ?? 0;
  const added = editing?.edits.added ?? [];
  const total = stored + added.length;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const pageNumbers = useMemo(
    () => [...new Set(items.filter((vi) => vi.index < stored).map((vi) => Math.floor(vi.index / TABLE_PAGE)))],
    [items, stored],
  );
  const pages = useTablePages(projectId, digest, count.data == null ? [] : pageNumbers.length ? pageNumbers : [0]);
  const rowAt = (index: number): TableRow | undefined => {
    const p = pageNumbers.indexOf(Math.floor(index / TABLE_PAGE));
    return p < 0 ? undefined : pages[p]?.data?.[index % TABLE_PAGE];
  };
  const firstPage = pages[0]?.data;
  const first = firstPage?.[0]?.val;
  const sample = (first && typeof first === 'object' && !Array.isArray(first) ? first : {}) as DatasetRow;
  const columns = useMemo(() => {
    const seen = new Set<string>();
    for (const val of [...(firstPage ?? []).map((r) => r.val), ...added])
      if (val && typeof val === 'object' && !Array.isArray(val))
        for (const k of Object.keys(val)) if (seen.size < MAX_COLUMNS) seen.add(k);
    return [...seen];
  }, [firstPage, added]);
  const template = `80px ${columns.length ? columns.map(() => 'minmax(140px, 1fr)').join(' ') : '1fr'}${editing ? ' 150px' : ''}`;
  const failed = pages.find((p) => p.isError)?.error ?? count.error;
  const loaded = pages.reduce((n, p) => n + (p.data?.length ?? 0), 0);

  if (failed) return <p role="alert">Could not load rows: {failed.message}</p>;
  return (
    <div className="grid-wrap dataset-rows">
      <div className="grid-table" role="table" aria-label="Dataset rows" aria-rowcount={total + 1}>
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row" style={{ gridTemplateColumns: template }}>
            <div role="columnheader" className="num">
              #
            </div>
            {columns.length ? (
              columns.map((c) => (
                <div role="columnheader" key={c}>
                  {c}
                </div>
              ))
            ) : (
              <div role="columnheader">Value</div>
            )}
            {editing && <div role="columnheader">Actions</div>}
          </div>
        </div>
        <div className="grid-body" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="Dataset rows, scrollable">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((vi) => {
              const target: RowTarget =
                vi.index < stored ? { kind: 'stored', index: vi.index } : { kind: 'added', index: vi.index - stored };
              const shown = shownRow(target, rowAt(vi.index), editing?.edits);
              const row = shown && { val: shown.val };
              const val = (row?.val ?? {}) as Record<string, unknown>;
              return (
                <div
                  key={vi.index}
                  role="row"
                  aria-rowindex={vi.index + 2}
                  data-index={vi.index}
                  className={`grid-row body-row static-row${shown?.state ? ` row-${shown.state}` : ''}`}
                  style={{ gridTemplateColumns: template, transform: `translateY(${vi.start}px)`, height: ROW_HEIGHT }}
                >
                  <div role="cell" className="num muted">
                    {target.kind === 'added' ? 'new' : vi.index}
                    {shown?.state && <span className="sr-only"> ({shown.state})</span>}
                  </div>
                  {!row ? (
                    <div role="cell" className="muted">
                      loading…
                    </div>
                  ) : columns.length ? (
                    columns.map((c) => (
                      <div role="cell" key={c} title={preview(val[c], 400)}>
                        {preview(val[c], 120)}
                      </div>
                    ))
                  ) : (
                    <div role="cell">{preview(row.val, 200)}</div>
                  )}
                  {editing && (
                    <div role="cell" className="row-actions">
                      {shown && (
                        <RowButtons
                          label={target.kind === 'added' ? `new row ${target.index + 1}` : `row ${vi.index}`}
                          removed={shown.state === 'removed'}
                          onEdit={() => editing.onEdit(target, val, columns, { ...sample, ...val })}
                          onRemove={(removed) => editing.onRemove(target, removed)}
                        />
                      )}
                    </div>
                  )}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <div className="grid-foot muted" aria-live="polite">
        {count.data == null ? 'Counting rows…' : `${formatInt(stored)} rows`}
        {` · ${formatInt(loaded)} in view loaded`}
        {editing && count.data != null && (
          <button
            type="button"
            onClick={() => editing.onEdit({ kind: 'added', index: added.length }, {}, columns, sample)}
          >
            Add row
          </button>
        )}
      </div>
    </div>
  );
}

type RowState = 'changed' | 'removed' | 'added' | null;

/** The row to show at `target` with the pending edits applied; undefined while its page loads. */
function shownRow(
  target: RowTarget,
  loaded: TableRow | undefined,
  edits: RowEdits | undefined,
): { val: unknown; state: RowState } | undefined {
  if (target.kind === 'added') return { val: edits?.added[target.index], state: 'added' };
  if (!loaded) return undefined;
  if (edits?.removed.has(target.index)) return { val: loaded.val, state: 'removed' };
  const changed = edits?.changed.get(target.index);
  return changed ? { val: changed, state: 'changed' } : { val: loaded.val, state: null };
}

function RowButtons({
  label,
  removed,
  onEdit,
  onRemove,
}: {
  label: string;
  removed: boolean;
  onEdit: () => void;
  onRemove: (removed: boolean) => void;
}) {
  if (removed)
    return (
      <button type="button" className="link-button" aria-label={`Restore ${label}`} onClick={() => onRemove(false)}>
        Restore
      </button>
    );
  return (
    <>
      <button type="button" className="link-button" aria-label={`Edit ${label}`} onClick={onEdit}>
        Edit
      </button>
      <button type="button" className="link-button" aria-label={`Remove ${label}`} onClick={() => onRemove(true)}>
        Remove
      </button>
    </>
  );
}
