import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import { Link } from '@tanstack/react-router';
import { StatusBadge } from '../../ui/status-badge.js';
import {
  callStatus,
  latencyMs,
  summariseFeedback,
  tokenUsage,
  totalCost,
  type Call,
  type FeedbackSummary,
} from '../../lib/call.js';
import { builtinColumn, cellText, cellValue, columnLabel, isSortableColumn } from '../../lib/columns.js';
import { formatCost, formatInt, formatLatency, formatTime, opDisplayName } from '../../lib/format.js';

/** The traces table's cells for each column id (lib/columns.ts holds the ids, labels and sizes). */

const DYNAMIC_SIZE = 220;
const col = createColumnHelper<Call>();

export type ColMeta = { num?: boolean; label: string };
// TanStack Table's own idiom for a list of columns of different value types
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCallColumn = ColumnDef<Call, any>;

function feedbackText(f: FeedbackSummary): string {
  const parts = f.reactions.map((r) => `${r.emoji}${r.count > 1 ? ` ${r.count}` : ''}`);
  if (f.notes) parts.push(`${f.notes} note${f.notes > 1 ? 's' : ''}`);
  if (f.other) parts.push(`${f.other} other`);
  return parts.join(' · ');
}

/** The built-in columns' definitions, by id (labels and sizes from lib/columns.ts). */
const BUILTIN_DEFS: Record<string, AnyCallColumn> = {
  op_name: col.accessor((c) => opDisplayName(c.op_name), {
    id: 'op_name',
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
  display_name: col.accessor((c) => c.display_name ?? '', { id: 'display_name' }),
  'summary.weave.status': col.accessor((c) => callStatus(c), {
    id: 'summary.weave.status',
    cell: (i) => <StatusBadge status={i.getValue()} />,
  }),
  started_at: col.accessor('started_at', { id: 'started_at', cell: (i) => formatTime(i.getValue(), false) }),
  'summary.weave.latency_ms': col.accessor((c) => latencyMs(c), {
    id: 'summary.weave.latency_ms',
    cell: (i) => formatLatency(i.getValue()),
  }),
  // sorted on the server by the same total and cost (docs/spec/calls.md §5.2 `summary.weave.*`)
  'summary.weave.total_tokens': col.accessor((c) => tokenUsage(c)?.total ?? null, {
    id: 'summary.weave.total_tokens',
    cell: (i) => (i.getValue() == null ? '—' : formatInt(i.getValue()!)),
  }),
  'summary.weave.total_cost': col.accessor((c) => totalCost(c), {
    id: 'summary.weave.total_cost',
    cell: (i) => formatCost(i.getValue()),
  }),
  feedback: col.accessor((c) => feedbackText(summariseFeedback(c.summary?.weave?.feedback)), { id: 'feedback' }),
  'feedback.reactions': col.accessor(
    (c) => feedbackText({ ...summariseFeedback(c.summary?.weave?.feedback), notes: 0, other: 0 }),
    { id: 'feedback.reactions' },
  ),
  'feedback.notes': col.accessor((c) => summariseFeedback(c.summary?.weave?.feedback).notes || '', {
    id: 'feedback.notes',
  }),
  id: col.accessor('id', { id: 'id' }),
  trace_id: col.accessor('trace_id', { id: 'trace_id' }),
};

/** The table's column definitions for the shown ids, in order. */
export function columnDefs(ids: readonly string[]): AnyCallColumn[] {
  return ids.map((id) => {
    const b = builtinColumn(id);
    const meta: ColMeta = { num: b?.num, label: columnLabel(id) };
    const base = BUILTIN_DEFS[id];
    if (b && base) return { ...base, header: b.label, size: b.size, enableSorting: b.sortable, meta };
    return col.accessor((c) => cellValue(c, id), {
      id,
      header: columnLabel(id),
      size: DYNAMIC_SIZE,
      enableSorting: isSortableColumn(id),
      cell: (i) => {
        const text = cellText(i.getValue());
        return <span title={text.length > 40 ? text : undefined}>{text}</span>;
      },
      meta,
    });
  });
}
