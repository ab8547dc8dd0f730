/**
 * The traces table's columns: the built-in ones, the flattened leaves of inputs and output
 * (`inputs.question`, `output.choices`), and the view's choice of which are shown, in which order,
 * and which are pinned to the left. Column ids are field paths of the calls query language
 * (calls spec §5.2; a dot inside a key is written `\.`), so an input column sorts on the server.
 */
import type { Call } from './call.js';

export interface BuiltinColumn {
  id: string;
  label: string;
  /** Sorted by the server on this id (SORTABLE_FIELDS in query.ts). */
  sortable: boolean;
  size: number;
  num?: boolean;
}

export const BUILTIN_COLUMNS: readonly BuiltinColumn[] = [
  { id: 'op_name', label: 'Op', sortable: true, size: 200 },
  { id: 'display_name', label: 'Display name', sortable: true, size: 180 },
  { id: 'summary.weave.status', label: 'Status', sortable: true, size: 120 },
  { id: 'started_at', label: 'Started (UTC)', sortable: true, size: 200 },
  { id: 'summary.weave.latency_ms', label: 'Latency', sortable: true, size: 100, num: true },
  { id: 'summary.weave.total_tokens', label: 'Tokens', sortable: true, size: 90, num: true },
  { id: 'summary.weave.total_cost', label: 'Cost', sortable: true, size: 104, num: true },
  { id: 'feedback', label: 'Feedback', sortable: false, size: 140 },
  { id: 'feedback.reactions', label: 'Reactions', sortable: false, size: 110 },
  { id: 'feedback.notes', label: 'Notes', sortable: false, size: 80, num: true },
  { id: 'id', label: 'Call id', sortable: false, size: 300 },
  { id: 'trace_id', label: 'Trace id', sortable: false, size: 300 },
];

const BUILTIN = new Map(BUILTIN_COLUMNS.map((c) => [c.id, c]));

/** What a view shows when it names no columns: the table as it was before columns could be chosen. */
export const DEFAULT_COLUMNS: readonly string[] = [
  'op_name',
  'display_name',
  'summary.weave.status',
  'started_at',
  'summary.weave.latency_ms',
  'summary.weave.total_tokens',
  'summary.weave.total_cost',
  'feedback',
];

/** Most columns one view may show, and the deepest a leaf is looked for. */
export const MAX_COLUMNS = 40;
const MAX_DEPTH = 5;
const MAX_LEAVES = 300;

export function isDynamicColumn(id: string): boolean {
  return id === 'output' || id.startsWith('output.') || id.startsWith('inputs.');
}

export function isColumnId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= 500 && (BUILTIN.has(id) || (isDynamicColumn(id) && id !== 'inputs.'));
}

export function builtinColumn(id: string): BuiltinColumn | undefined {
  return BUILTIN.get(id);
}

export function columnLabel(id: string): string {
  return BUILTIN.get(id)?.label ?? id.replace(/\\\./g, '.');
}

export function isSortableColumn(id: string): boolean {
  return BUILTIN.get(id)?.sortable ?? isDynamicColumn(id);
}

/** The segments of a column id: `inputs.a\.b.c` → `inputs`, `a.b`, `c`. */
export function splitPath(id: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i]!;
    if (ch === '\\' && id[i + 1] === '.') {
      cur += '.';
      i++;
    } else if (ch === '.') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export function joinPath(segments: readonly (string | number)[]): string {
  return segments.map((s) => String(s).replace(/\./g, '\\.')).join('.');
}

/** The value a dynamic column shows for a call (undefined where the call has none). */
export function cellValue(call: Call, id: string): unknown {
  let v: unknown = call;
  for (const seg of splitPath(id)) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** A one-line text for a cell: strings as they are, everything else as JSON, cut to `max`. */
export function cellText(v: unknown, max = 300): string {
  if (v === undefined || v === null) return '—';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/**
 * The leaf paths of `value` under `prefix` (objects are walked, arrays and scalars are leaves),
 * added to `into` in first-seen order; at most MAX_LEAVES.
 */
export function collectLeaves(value: unknown, prefix: string, into: Set<string>, depth = 0): void {
  if (into.size >= MAX_LEAVES) return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < MAX_DEPTH) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return;
    for (const [k, v] of entries) collectLeaves(v, `${prefix}.${joinPath([k])}`, into, depth + 1);
    return;
  }
  into.add(prefix);
}

/** Every input and output leaf of a sample of calls: the columns a user may add. */
export function leafColumns(calls: readonly Pick<Call, 'inputs' | 'output'>[]): string[] {
  const into = new Set<string>();
  for (const c of calls) {
    collectLeaves(c.inputs ?? {}, 'inputs', into);
    if (c.output !== undefined && c.output !== null) collectLeaves(c.output, 'output', into);
  }
  into.delete('inputs');
  return [...into];
}

/** The shown columns: pinned ones first (in the view's order), then the rest. */
export function orderedColumns(cols: readonly string[], pin: readonly string[]): string[] {
  const pinned = new Set(pin);
  return [...cols.filter((c) => pinned.has(c)), ...cols.filter((c) => !pinned.has(c))];
}

/** The top-level call fields the server must return for these columns (calls spec §5.6). */
export function fetchedFields(base: readonly string[], cols: readonly string[]): string[] {
  const out = [...base];
  if (cols.some((c) => c.startsWith('inputs.'))) out.push('inputs');
  if (cols.some((c) => c === 'output' || c.startsWith('output.'))) out.push('output');
  return out;
}

/** `cols` with `id` moved `delta` places (clamped). */
export function moveColumn(cols: readonly string[], id: string, delta: number): string[] {
  const i = cols.indexOf(id);
  if (i < 0) return [...cols];
  const j = Math.max(0, Math.min(cols.length - 1, i + delta));
  const out = [...cols];
  out.splice(i, 1);
  out.splice(j, 0, id);
  return out;
}
