import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type UIEvent } from 'react';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Link } from '@tanstack/react-router';
import { StatusBadge } from '../../components/status-badge.js';
import { callStatus, latencyMs, summariseFeedback, tokenUsage, totalCost, type Call } from '../../lib/call.js';
import { formatCost, formatInt, formatLatency, formatTime, opDisplayName } from '../../lib/format.js';
import type { SortBy } from '../../lib/query.js';

const ROW_HEIGHT = 36;
const col = createColumnHelper<Call>();

const columns = [
  col.accessor((c) => opDisplayName(c.op_name), {
    id: 'op_name',
    header: 'Op',
    size: 200,
    // A real link, so a call opens in a new tab with the usual gestures; rows stay the focus stops.
    cell: (i) => {
      const { entity, project } = i.table.options.meta as { entity: string; project: string };
      return (
        <Link
          to="/$entity/$project/r/call/$callId"
          params={{ entity, project, callId: i.row.original.id }}
          search={{}}
          tabIndex={-1}
          className="row-link"
          onClick={(e) => e.stopPropagation()}
        >
          {i.getValue()}
        </Link>
      );
    },
  }),
  col.accessor((c) => c.display_name ?? '', { id: 'display_name', header: 'Display name', size: 180 }),
  col.accessor((c) => callStatus(c), {
    id: 'summary.weave.status',
    header: 'Status',
    size: 120,
    cell: (i) => <StatusBadge status={i.getValue()} />,
  }),
  col.accessor('started_at', {
    id: 'started_at',
    header: 'Started (UTC)',
    size: 200,
    cell: (i) => formatTime(i.getValue(), false),
  }),
  col.accessor((c) => latencyMs(c), {
    id: 'summary.weave.latency_ms',
    header: 'Latency',
    size: 100,
    cell: (i) => formatLatency(i.getValue()),
    meta: { num: true },
  }),
  col.accessor((c) => tokenUsage(c)?.total ?? null, {
    // sorted on the server by the same total (docs/spec/calls.md §5.2 `summary.weave.total_tokens`)
    id: 'summary.weave.total_tokens',
    header: 'Tokens',
    size: 90,
    cell: (i) => (i.getValue() == null ? '—' : formatInt(i.getValue()!)),
    meta: { num: true },
  }),
  col.accessor((c) => totalCost(c), {
    // sorted on the server by the same cost (docs/spec/calls.md §5.2 `summary.weave.total_cost`)
    id: 'summary.weave.total_cost',
    header: 'Cost',
    size: 104,
    cell: (i) => formatCost(i.getValue()),
    meta: { num: true },
  }),
  col.accessor((c) => summariseFeedback(c.summary?.weave?.feedback), {
    id: 'feedback',
    header: 'Feedback',
    size: 140,
    enableSorting: false,
    cell: (i) => {
      const f = i.getValue();
      const parts = f.reactions.map((r) => `${r.emoji}${r.count > 1 ? ` ${r.count}` : ''}`);
      if (f.notes) parts.push(`${f.notes} note${f.notes > 1 ? 's' : ''}`);
      if (f.other) parts.push(`${f.other} other`);
      return parts.join(' · ');
    },
  }),
];

interface Props {
  entity: string;
  project: string;
  calls: Call[];
  sort: SortBy;
  onSort: (field: string) => void;
  onOpen: (call: Call) => void;
  onNearEnd: () => void;
  onScrollTop: (atTop: boolean) => void;
  totalLabel: string;
  loadingMore: boolean;
}

export function CallsTable({
  entity,
  project,
  calls,
  sort,
  onSort,
  onOpen,
  onNearEnd,
  onScrollTop,
  totalLabel,
  loadingMore,
}: Props) {
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
  const template = useMemo(
    () =>
      table
        .getAllLeafColumns()
        .map((c, i) => (i === 0 ? `minmax(${c.getSize()}px, 2fr)` : `${c.getSize()}px`))
        .join(' '),
    [table],
  );

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
  };

  return (
    <div className="grid-wrap">
      <div
        className="grid-table"
        role="table"
        aria-label="Calls"
        aria-rowcount={rows.length + 1}
        aria-describedby="calls-count"
      >
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row" style={{ gridTemplateColumns: template }}>
            {table.getHeaderGroups()[0].headers.map((h) => {
              const sortable = h.column.getCanSort();
              const dir = sort.field === h.column.id ? sort.direction : null;
              const meta = h.column.columnDef.meta as { num?: boolean } | undefined;
              return (
                <div
                  role="columnheader"
                  key={h.id}
                  className={meta?.num ? 'num' : undefined}
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
          onScroll={(e: UIEvent<HTMLDivElement>) => onScrollTop(e.currentTarget.scrollTop < 4)}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
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
                  {row.getVisibleCells().map((cell) => {
                    const meta = cell.column.columnDef.meta as { num?: boolean } | undefined;
                    return (
                      <div role="cell" key={cell.id} className={meta?.num ? 'num' : undefined}>
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
