import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { StatusBadge } from '../../ui/status-badge.js';
import { callStatus, latencyMs } from '../../lib/call.js';
import { formatLatency, opDisplayName } from '../../lib/format.js';
import { flattenTree, type TreeIndex } from '../../lib/tree.js';

const ROW = 30;

interface Props {
  index: TreeIndex;
  collapsed: ReadonlySet<string>;
  onToggle: (id: string) => void;
  selected: string;
  onSelect: (id: string) => void;
}

/** The call tree with a waterfall bar per row, virtualised so a 10,000-call trace stays smooth. */
export function CallTree({ index, collapsed, onToggle, selected, onSelect }: Props) {
  const rows = useMemo(() => flattenTree(index, collapsed), [index, collapsed]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW,
    overscan: 20,
    getItemKey: (i) => rows[i].id,
  });
  const selIndex = rows.findIndex((r) => r.id === selected);
  useEffect(() => {
    if (selIndex >= 0) virtualizer.scrollToIndex(selIndex, { align: 'auto' });
    // scroll only when the selection moves, not when the virtualiser object changes
  }, [selIndex]);

  const span = Math.max(1, index.end - index.start);
  const now = Date.now();

  const onKeyDown = (e: KeyboardEvent) => {
    const row = rows[selIndex];
    let next = -1;
    if (e.key === 'ArrowDown' || e.key === 'j') next = Math.min(rows.length - 1, selIndex + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') next = Math.max(0, selIndex - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = rows.length - 1;
    else if (e.key === 'ArrowRight' && row?.hasChildren && !row.expanded) onToggle(row.id);
    else if (e.key === 'ArrowLeft' && row?.hasChildren && row.expanded) onToggle(row.id);
    else return;
    e.preventDefault();
    if (next >= 0 && rows[next]) {
      onSelect(rows[next].id);
      requestAnimationFrame(() =>
        scrollRef.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(rows[next].id)}"]`)?.focus(),
      );
    }
  };

  return (
    <section className="tree-pane" aria-label="Call tree and timeline">
      <div className="tree-head muted">
        <span>Call</span>
        <span>Timeline · {formatLatency(Math.round(index.end - index.start))}</span>
      </div>
      <div className="tree-scroll" ref={scrollRef} role="tree" aria-label="Calls in this trace" onKeyDown={onKeyDown}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((vi) => {
            const r = rows[vi.index];
            const c = index.byId.get(r.id)!;
            const s = Date.parse(c.started_at);
            const e = c.ended_at ? Date.parse(c.ended_at) : now;
            const left = ((s - index.start) / span) * 100;
            const width = Math.max(0.4, ((e - s) / span) * 100);
            const status = callStatus(c);
            const isSel = r.id === selected;
            return (
              <div
                key={r.id}
                role="treeitem"
                aria-level={r.depth + 1}
                aria-expanded={r.hasChildren ? r.expanded : undefined}
                aria-selected={isSel}
                data-id={r.id}
                tabIndex={isSel || (selIndex < 0 && vi.index === 0) ? 0 : -1}
                className={`tree-row${isSel ? ' selected' : ''}`}
                style={{ transform: `translateY(${vi.start}px)`, height: ROW }}
                onClick={() => onSelect(r.id)}
              >
                <span className="tree-label" style={{ paddingLeft: Math.min(r.depth, 30) * 14 }}>
                  {r.hasChildren ? (
                    <button
                      type="button"
                      tabIndex={-1}
                      className="tree-toggle"
                      aria-label={r.expanded ? 'Collapse' : 'Expand'}
                      onClick={(ev) => {
                        ev.stopPropagation();
                        onToggle(r.id);
                      }}
                    >
                      <span aria-hidden="true">{r.expanded ? '▾' : '▸'}</span>
                    </button>
                  ) : (
                    <span className="tree-toggle" aria-hidden="true" />
                  )}
                  <StatusBadge status={status} compact />
                  <span className="tree-name">{c.display_name ?? opDisplayName(c.op_name)}</span>
                  <span className="muted small">{formatLatency(latencyMs(c))}</span>
                </span>
                <span className="tree-bar-track" aria-hidden="true">
                  <span className={`tree-bar bar-${status}`} style={{ left: `${left}%`, width: `${width}%` }} />
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
