import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { formatScore, rowDiff, scoreValue, trialOf, type EvalResultsRow, type ScoreDim } from '../../lib/evals.js';
import { preview } from '../../lib/format.js';

const ROW_HEIGHT = 58;

interface Props {
  rows: EvalResultsRow[];
  total: number;
  ids: string[];
  labels: string[];
  dims: ScoreDim[];
  selected: string | undefined;
  onSelect: (digest: string) => void;
  onNearEnd: () => void;
  loadingMore: boolean;
}

/**
 * Per-row outputs and scores of every compared run, virtualised: only visible rows are in the DOM,
 * and pages load from the server as the list scrolls. A row where the runs disagree says so in its
 * first column, and each differing cell is marked (text and colour).
 */
export function EvalRowsTable({ rows, total, ids, labels, dims, selected, onSelect, onNearEnd, loadingMore }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    getItemKey: (i) => rows[i]?.row_digest ?? i,
  });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (rows.length > 0 && last >= rows.length - 20) onNearEnd();
  }, [last, rows.length, onNearEnd]);
  const diffs = useMemo(() => rows.map((r) => rowDiff(r, ids, dims)), [rows, ids, dims]);
  const [active, setActive] = useState(0);
  const template = `92px minmax(220px, 1.2fr) ${ids.map(() => 'minmax(200px, 1fr)').join(' ')}`;

  const focusRow = (i: number) => {
    const n = Math.max(0, Math.min(rows.length - 1, i));
    setActive(n);
    virtualizer.scrollToIndex(n, { align: 'auto' });
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${n}"]`)?.focus());
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const step: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 8, PageUp: -8 };
    if (e.key in step) {
      e.preventDefault();
      focusRow(active + step[e.key]);
    } else if (e.key === 'Enter' && rows[active]) onSelect(rows[active].row_digest);
  };

  return (
    <div className="grid-wrap eval-rows">
      <div className="grid-table" role="table" aria-label="Rows" aria-rowcount={total + 1}>
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row" style={{ gridTemplateColumns: template }}>
            <div role="columnheader">Diff</div>
            <div role="columnheader">Input</div>
            {labels.map((l, i) => (
              <div role="columnheader" key={ids[i]}>
                {l}
              </div>
            ))}
          </div>
        </div>
        <div className="grid-body" role="rowgroup" ref={scrollRef} onKeyDown={onKeyDown}>
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((vi) => {
              const row = rows[vi.index];
              const diff = diffs[vi.index];
              const isSel = row.row_digest === selected;
              return (
                <div
                  key={row.row_digest}
                  role="row"
                  aria-rowindex={vi.index + 2}
                  aria-selected={isSel}
                  data-index={vi.index}
                  tabIndex={vi.index === active ? 0 : -1}
                  className={`grid-row body-row eval-row${isSel ? ' selected' : ''}${diff.any ? ' row-differs' : ''}`}
                  style={{ gridTemplateColumns: template, transform: `translateY(${vi.start}px)`, height: ROW_HEIGHT }}
                  onClick={() => {
                    setActive(vi.index);
                    onSelect(row.row_digest);
                  }}
                  onFocus={() => setActive(vi.index)}
                >
                  <div role="cell">
                    {ids.length > 1 && diff.present < ids.length ? (
                      <span
                        className="diff-mark"
                        title={`Only ${diff.present} of the ${ids.length} runs have this row`}
                      >
                        in {diff.present} of {ids.length}
                      </span>
                    ) : diff.any ? (
                      <span className="diff-mark">≠ differs</span>
                    ) : (
                      <span className="muted">same</span>
                    )}
                  </div>
                  <div role="cell" className="small" title={preview(row.raw_data_row, 600)}>
                    {preview(row.raw_data_row, 160)}
                  </div>
                  {ids.map((id) => {
                    const t = trialOf(row, id);
                    if (!t)
                      return (
                        <div role="cell" key={id} className="muted small">
                          not in this run
                        </div>
                      );
                    return (
                      <div role="cell" key={id} className="eval-cell">
                        <span className={diff.output ? 'cell-diff' : undefined}>{preview(t.model_output, 80)}</span>
                        <span className="small scores-line">
                          {dims.map((d) => {
                            const v = scoreValue(t.scores, d);
                            if (v === undefined) return null;
                            return (
                              <span key={d.label} className={diff.scores[d.label] ? 'cell-diff' : undefined}>
                                {d.label}: {formatScore(v)}
                              </span>
                            );
                          })}
                        </span>
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <div className="grid-foot muted" aria-live="polite">
        {rows.length} of {total} rows loaded
        {loadingMore ? ' · loading more…' : ''}
      </div>
    </div>
  );
}
