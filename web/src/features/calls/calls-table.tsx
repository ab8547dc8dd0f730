import { useEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent, type UIEvent } from 'react';
import { flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Call } from '../../lib/call.js';
import { opDisplayName } from '../../lib/format.js';
import type { SortBy } from '../../lib/query.js';
import { columnDefs, type ColMeta } from './call-columns.js';

const ROW_HEIGHT = 36;
const SELECT_WIDTH = 36;
const SELECT_STICKY = { position: 'sticky', left: 0, zIndex: 1 } as const;

interface Props {
  entity: string;
  project: string;
  calls: Call[];
  /** The shown column ids, pinned ones first. */
  cols: readonly string[];
  pin: readonly string[];
  /** Ids of the selected rows (for compare), and how one is toggled. */
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
  sort: SortBy;
  onSort: (field: string) => void;
  onOpen: (call: Call) => void;
  onNearEnd: () => void;
  onScrollTop: (atTop: boolean) => void;
  totalLabel: string;
  loadingMore: boolean;
  /** The rows shown are the previous query's while a new sort or filter loads. */
  stale: boolean;
}

export function CallsTable({
  entity,
  project,
  calls,
  cols,
  pin,
  selected,
  onToggle,
  sort,
  onSort,
  onOpen,
  onNearEnd,
  onScrollTop,
  totalLabel,
  loadingMore,
  stale,
}: Props) {
  const columns = useMemo(() => columnDefs(cols), [cols]);
  const table = useReactTable({
    data: calls,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    meta: { entity, project },
    getRowId: (c) => c.id,
  });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (i) => rows[i]?.id ?? i,
  });
  const items = virtualizer.getVirtualItems();
  const [active, setActive] = useState(0);
  const layout = useMemo(() => {
    const pinned = new Set(pin);
    const leafs = table.getAllLeafColumns();
    let left = SELECT_WIDTH;
    const sticky = new Map<string, CSSProperties>();
    for (const c of leafs) {
      if (!pinned.has(c.id)) break;
      sticky.set(c.id, { position: 'sticky', left, zIndex: 1 });
      left += c.getSize();
    }
    const width = leafs.reduce((n, c) => n + c.getSize(), SELECT_WIDTH);
    // the op column takes spare width unless it is pinned (a pinned column keeps its size)
    const template = [`${SELECT_WIDTH}px`]
      .concat(
        leafs.map((c) =>
          c.id === 'op_name' && !pinned.has(c.id) ? `minmax(${c.getSize()}px, 2fr)` : `${c.getSize()}px`,
        ),
      )
      .join(' ');
    return { template, sticky, width };
  }, [table, columns, pin]);
  const template = layout.template;
  const headRef = useRef<HTMLDivElement>(null);

  const last = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (rows.length > 0 && last >= rows.length - 40) onNearEnd();
  }, [last, rows.length, onNearEnd]);

  const focusRow = (i: number) => {
    const n = Math.max(0, Math.min(rows.length - 1, i));
    setActive(n);
    virtualizer.scrollToIndex(n, { align: 'auto' });
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${n}"]`)?.focus());
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement) return;
    const keyMap: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 15, PageUp: -15 };
    if (e.key in keyMap) {
      e.preventDefault();
      focusRow(active + keyMap[e.key]);
    } else if (e.key === 'Home') focusRow(0);
    else if (e.key === 'End') focusRow(rows.length - 1);
    else if (e.key === 'Enter' && rows[active]) onOpen(rows[active].original);
    else if (e.key === 'x' && rows[active]) onToggle(rows[active].original.id);
  };

  return (
    <div className="grid-wrap">
      <div
        className="grid-table"
        role="table"
        aria-label="Calls"
        aria-rowcount={rows.length + 1}
        aria-describedby="calls-count"
        aria-busy={stale}
      >
        <div role="rowgroup" className="grid-head" ref={headRef}>
          <div
            role="row"
            aria-rowindex={1}
            className="grid-row"
            style={{ gridTemplateColumns: template, minWidth: layout.width }}
          >
            <div role="columnheader" className="pinned select-cell" style={SELECT_STICKY}>
              <span className="sr-only">Selected</span>
            </div>
            {table.getHeaderGroups()[0].headers.map((h) => {
              const sortable = h.column.getCanSort();
              const dir = sort.field === h.column.id ? sort.direction : null;
              const meta = h.column.columnDef.meta as ColMeta | undefined;
              const sticky = layout.sticky.get(h.column.id);
              return (
                <div
                  role="columnheader"
                  key={h.id}
                  className={[meta?.num ? 'num' : '', sticky ? 'pinned' : ''].join(' ').trim() || undefined}
                  style={sticky}
                  data-col={h.column.id}
                  aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
                >
                  {sortable ? (
                    <button type="button" className="sort-button" onClick={() => onSort(h.column.id)}>
                      {flexRender(h.column.columnDef.header, h.getContext())}
                      <span aria-hidden="true">{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}</span>
                    </button>
                  ) : (
                    flexRender(h.column.columnDef.header, h.getContext())
                  )}
                </div>
              );
            })}
          </div>
        </div>
        <div
          className="grid-body"
          role="rowgroup"
          ref={scrollRef}
          onKeyDown={onKeyDown}
          onScroll={(e: UIEvent<HTMLDivElement>) => {
            onScrollTop(e.currentTarget.scrollTop < 4);
            if (headRef.current) headRef.current.scrollLeft = e.currentTarget.scrollLeft;
          }}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative', minWidth: layout.width }}>
            {items.map((vi) => {
              const row = rows[vi.index];
              return (
                <div
                  key={row.id}
                  role="row"
                  aria-rowindex={vi.index + 2}
                  data-index={vi.index}
                  tabIndex={vi.index === active ? 0 : -1}
                  className="grid-row body-row"
                  style={{ gridTemplateColumns: template, transform: `translateY(${vi.start}px)`, height: ROW_HEIGHT }}
                  onClick={() => {
                    setActive(vi.index);
                    onOpen(row.original);
                  }}
                  onFocus={() => setActive(vi.index)}
                >
                  <div role="cell" className="pinned select-cell" style={SELECT_STICKY}>
                    <input
                      type="checkbox"
                      tabIndex={-1}
                      aria-label={`Select ${row.original.display_name ?? opDisplayName(row.original.op_name)} (${row.original.id})`}
                      checked={selected.has(row.original.id)}
                      onClick={(e) => e.stopPropagation()}
                      onChange={() => onToggle(row.original.id)}
                    />
                  </div>
                  {row.getVisibleCells().map((cell) => {
                    const meta = cell.column.columnDef.meta as ColMeta | undefined;
                    const sticky = layout.sticky.get(cell.column.id);
                    return (
                      <div
                        role="cell"
                        key={cell.id}
                        className={[meta?.num ? 'num' : '', sticky ? 'pinned' : ''].join(' ').trim() || undefined}
                        style={sticky}
                      >
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <div className="grid-foot muted" id="calls-count" aria-live="polite">
        {totalLabel}
        {loadingMore ? ' · loading more…' : ''}
      </div>
    </div>
  );
}
