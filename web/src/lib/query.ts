/**
 * Builds `/calls/stream_query` requests from the traces page's URL state (the search box's text:
 * `searchText`), and parses the free field filter (`inputs.user_id = "x" and
 * summary.weave.latency_ms > 1000`) into the calls query language (calls spec §5).
 */
import { isColumnId, isDynamicColumn, MAX_COLUMNS } from './columns.js';

export type Operand =
  | { $literal: string | number | boolean | null }
  | { $getField: string }
  | { $convert: { input: Operand; to: 'double' | 'string' | 'int' | 'bool' | 'exists' } };

export type Operation =
  | { $and: Operation[] }
  | { $or: Operation[] }
  | { $not: [Operation] }
  | { $eq: [Operand, Operand] }
  | { $gt: [Operand, Operand] }
  | { $gte: [Operand, Operand] }
  | { $lt: [Operand, Operand] }
  | { $lte: [Operand, Operand] }
  | { $contains: { input: Operand; substr: Operand; case_insensitive?: boolean } };

export interface Query {
  $expr: Operation;
}

export interface CallsFilter {
  op_names?: string[];
  trace_roots_only?: boolean;
  trace_ids?: string[];
  thread_ids?: string[];
  call_ids?: string[];
  parent_ids?: string[];
}

export interface SortBy {
  field: string;
  direction: 'asc' | 'desc';
}

export const STATUSES = ['success', 'error', 'running', 'descendant_error'] as const;
export type StatusFilter = (typeof STATUSES)[number];

/** The traces page's filter and sort state; exactly what lives in the URL. */
export interface TracesSearch {
  all?: boolean;
  op?: string;
  status?: StatusFilter;
  from?: string;
  to?: string;
  /** The search box: text anywhere in inputs or output (`searchText`). */
  text?: string;
  q?: string;
  sort?: string;
  dir?: 'asc' | 'desc';
  live?: boolean;
  /** The shown columns in order (lib/columns.ts ids); absent: DEFAULT_COLUMNS. */
  cols?: string[];
  /** Columns pinned to the left. */
  pin?: string[];
  /** The saved view (a `SavedView` object id) this state was loaded from. */
  view?: string;
  /** Call ids selected in the table (for compare); not part of a saved view. */
  picked?: string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const bool = (v: unknown): boolean | undefined => (v === true || v === 'true' || v === '1' ? true : undefined);

/** Validates raw search params: anything invalid is dropped, never thrown. */
export function parseTracesSearch(raw: Record<string, unknown>): TracesSearch {
  const s: TracesSearch = {};
  if (bool(raw.all)) s.all = true;
  if (bool(raw.live)) s.live = true;
  const op = str(raw.op);
  if (op) s.op = op;
  if (STATUSES.includes(raw.status as StatusFilter)) s.status = raw.status as StatusFilter;
  for (const k of ['from', 'to'] as const) {
    const v = str(raw[k]);
    if (v && !Number.isNaN(Date.parse(v))) s[k] = v;
  }
  const text = str(raw.text);
  if (text) s.text = text;
  const q = str(raw.q);
  if (q) s.q = q;
  const sort = str(raw.sort);
  if (sort && (SORTABLE_FIELDS.includes(sort) || isDynamicColumn(sort))) s.sort = sort;
  if (raw.dir === 'asc' || raw.dir === 'desc') s.dir = raw.dir;
  const cols = columnList(raw.cols);
  if (cols) s.cols = cols;
  const pin = columnList(raw.pin);
  if (pin) s.pin = pin;
  const view = str(raw.view);
  if (view) s.view = view;
  const picked = Array.isArray(raw.picked)
    ? [...new Set(raw.picked.filter((v): v is string => typeof v === 'string' && /^[\w-]{1,128}$/.test(v)))]
    : [];
  if (picked.length > 0) s.picked = picked.slice(0, 8);
  return s;
}

/** A list of column ids from the URL (an array, or one comma-free id); invalid entries dropped. */
function columnList(v: unknown): string[] | undefined {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  const ids = [...new Set(list.filter(isColumnId))].slice(0, MAX_COLUMNS);
  return ids.length > 0 ? ids : undefined;
}

export const SORTABLE_FIELDS = [
  'started_at',
  'op_name',
  'display_name',
  'summary.weave.status',
  'summary.weave.latency_ms',
  'summary.weave.trace_name',
  'summary.weave.total_tokens',
  'summary.weave.total_cost',
];

export function sortOf(s: TracesSearch): SortBy {
  return { field: s.sort ?? 'started_at', direction: s.dir ?? 'desc' };
}

export class FieldFilterError extends Error {}

const OPS: Record<string, 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'> = {
  '=': 'eq',
  '==': 'eq',
  '!=': 'ne',
  '>': 'gt',
  '>=': 'gte',
  '<': 'lt',
  '<=': 'lte',
  contains: 'contains',
  '~': 'contains',
};

/**
 * Parses `path op value [and path op value …]`. `value` is a JSON literal (string in double
 * quotes, number, true, false, null) or a bare word taken as a string.
 */
export function parseFieldFilter(text: string): Operation[] {
  const src = text.trim();
  const out: Operation[] = [];
  let i = 0;
  const ws = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  while (i < src.length) {
    ws();
    const pm = /^(?:\\.|[A-Za-z0-9_.\-[\]*])+/.exec(src.slice(i));
    if (!pm) throw new FieldFilterError(`Expected a field path at position ${i + 1}`);
    const path = pm[0];
    i += path.length;
    ws();
    const om = /^(==|!=|>=|<=|=|>|<|~|contains\b)/i.exec(src.slice(i));
    if (!om) throw new FieldFilterError(`Expected an operator (=, !=, >, >=, <, <=, contains) after ${path}`);
    // the pattern above matches only OPS keys
    const op = OPS[om[0].toLowerCase()]!;
    i += om[0].length;
    ws();
    let value: string | number | boolean | null;
    if (src[i] === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(src.slice(i));
      if (!m) throw new FieldFilterError('Unterminated string');
      value = JSON.parse(m[0]) as string;
      i += m[0].length;
    } else {
      const m = /^[^\s"]+/.exec(src.slice(i));
      if (!m) throw new FieldFilterError(`Expected a value after ${path} ${om[0]}`);
      const w = m[0];
      i += w.length;
      if (w === 'true' || w === 'false') value = w === 'true';
      else if (w === 'null') value = null;
      else if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(w)) value = Number(w);
      else value = w;
    }
    out.push(comparison(path, op, value));
    ws();
    if (i >= src.length) break;
    const am = /^and\b/i.exec(src.slice(i));
    if (!am) throw new FieldFilterError(`Expected "and" at position ${i + 1}`);
    i += am[0].length;
    if (src.slice(i).trim() === '') throw new FieldFilterError('Expected a condition after "and"');
  }
  return out;
}

function comparison(path: string, op: (typeof OPS)[string], value: string | number | boolean | null): Operation {
  const field = { $getField: path };
  const lit = { $literal: value };
  switch (op) {
    case 'eq':
      return { $eq: [field, lit] };
    case 'ne':
      return { $not: [{ $eq: [field, lit] }] };
    case 'contains':
      return { $contains: { input: field, substr: { $literal: String(value) }, case_insensitive: true } };
    default:
      return { [`$${op}`]: [field, lit] } as Operation;
  }
}

/** The `filter` and `query` of a calls request for this page state (sort and paging excluded). */
export function buildCallsQuery(projectId: string, s: TracesSearch): { filter: CallsFilter; query: Query | null } {
  const filter: CallsFilter = {};
  if (!s.all) filter.trace_roots_only = true;
  if (s.op) filter.op_names = opNameVariants(projectId, s.op);
  const conds: Operation[] = [];
  if (s.status) conds.push({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: s.status }] });
  if (s.from) conds.push({ $gte: [{ $getField: 'started_at' }, { $literal: new Date(s.from).toISOString() }] });
  if (s.to) conds.push({ $lt: [{ $getField: 'started_at' }, { $literal: new Date(s.to).toISOString() }] });
  if (s.q) conds.push(...parseFieldFilter(s.q));
  if (s.text) conds.push(searchText(s.text));
  return { filter, query: conds.length === 0 ? null : { $expr: conds.length === 1 ? conds[0]! : { $and: conds } } };
}

/**
 * The search box: `text` in the inputs or the output, case-insensitive. Each is tested as a whole,
 * as its JSON text (keys, numbers and punctuation included; strings as they are when the output
 * is one), which the server answers from its substring index when the text has three or more
 * characters (docs/query-performance.md "The search box").
 */
export function searchText(text: string): Operation {
  return {
    $or: (['inputs', 'output'] as const).map((column) => ({
      $contains: { input: { $getField: column }, substr: { $literal: text }, case_insensitive: true },
    })),
  };
}

/** An op chosen by name matches the plain name and every version of the op ref (`:*`, §5.4). */
export function opNameVariants(projectId: string, op: string): string[] {
  if (op.startsWith('weave:///')) return [op];
  return [op, `weave:///${projectId}/op/${op}:*`];
}
