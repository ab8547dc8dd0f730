import { useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { TABLE_PAGE, useTableCount, useTablePages, type TableRow } from '../../api/objects.js';
import { formatInt, preview } from '../../lib/format.js';

const ROW_HEIGHT = 34;
const MAX_COLUMNS = 12;

/**
 * A stored table's rows (a dataset's `rows`), virtualised over the table's full length: only the
 * pages of 200 rows that are on screen are fetched (`/table/query` offset/limit), so a 100k-row
 * dataset scrolls to any row without loading the rest.
 */
export function DatasetRows({ projectId, digest }: { projectId: string; digest: string }) {
  const count = useTableCount(projectId, digest);
  const total = count.data ?? 0;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const pageNumbers = useMemo(() => [...new Set(items.map((vi) => Math.floor(vi.index / TABLE_PAGE)))], [items]);
  const pages = useTablePages(projectId, digest, count.data == null ? [] : pageNumbers.length ? pageNumbers : [0]);
  const rowAt = (index: number): TableRow | undefined => {
    const p = pageNumbers.indexOf(Math.floor(index / TABLE_PAGE));
    return p < 0 ? undefined : pages[p]?.data?.[index % TABLE_PAGE];
  };
  const firstPage = pages[0]?.data;
  const columns = useMemo(() => {
    const seen = new Set<string>();
    for (const r of firstPage ?? [])
      if (r.val && typeof r.val === 'object' && !Array.isArray(r.val))
        for (const k of Object.keys(r.val)) if (seen.size < MAX_COLUMNS) seen.add(k);
    return [...seen];
  }, [firstPage]);
  const template = `80px ${columns.length ? columns.map(() => 'minmax(140px, 1fr)').join(' ') : '1fr'}`;
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
          </div>
        </div>
        <div className="grid-body" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="Dataset rows, scrollable">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((vi) => {
              const row = rowAt(vi.index);
              const val = (row?.val ?? {}) as Record<string, unknown>;
              return (
                <div
                  key={vi.index}
                  role="row"
                  aria-rowindex={vi.index + 2}
                  data-index={vi.index}
                  className="grid-row body-row static-row"
                  style={{ gridTemplateColumns: template, transform: `translateY(${vi.start}px)`, height: ROW_HEIGHT }}
                >
                  <div role="cell" className="num muted">
                    {vi.index}
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
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <div className="grid-foot muted" aria-live="polite">
        {count.data == null ? 'Counting rows…' : `${formatInt(total)} rows`}
        {` · ${formatInt(loaded)} in view loaded`}
      </div>
    </div>
  );
}
