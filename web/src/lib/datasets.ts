/**
 * Dataset editing, pure: pending row edits and the `/table/update` steps that apply them, cell text
 * in and out of the row editor, and rows made from calls for "Add to dataset".
 */
import type { Call } from './call.js';
import { cellValue, splitPath } from './columns.js';
import { parseRef } from './format.js';

export type DatasetRow = Record<string, unknown>;

/** What the user changed in a dataset's rows and has not saved yet. */
export interface RowEdits {
  changed: ReadonlyMap<number, DatasetRow>;
  removed: ReadonlySet<number>;
  added: readonly DatasetRow[];
}

export const NO_EDITS: RowEdits = { changed: new Map(), removed: new Set(), added: [] };

export type TableUpdate =
  { pop: { index: number } } | { insert: { index: number; row: DatasetRow } } | { append: { row: DatasetRow } };

export function editCount(e: RowEdits): number {
  let changed = 0;
  for (const i of e.changed.keys()) if (!e.removed.has(i)) changed++;
  return changed + e.removed.size + e.added.length;
}

export function editSummary(e: RowEdits): string {
  const changed = editCount(e) - e.removed.size - e.added.length;
  const parts = [
    changed && `${changed} changed`,
    e.removed.size && `${e.removed.size} removed`,
    e.added.length && `${e.added.length} added`,
  ].filter(Boolean);
  return parts.length ? `Unsaved: ${parts.join(', ')}` : 'No changes';
}

export function withChanged(e: RowEdits, index: number, row: DatasetRow): RowEdits {
  return { ...e, changed: new Map(e.changed).set(index, row) };
}

export function withRemoved(e: RowEdits, index: number, removed: boolean): RowEdits {
  const next = new Set(e.removed);
  if (removed) next.add(index);
  else next.delete(index);
  return { ...e, removed: next };
}

/** Row `index` of the added ones replaced by `row`, or dropped when `row` is null. */
export function withAdded(e: RowEdits, index: number, row: DatasetRow | null): RowEdits {
  const added = [...e.added];
  if (index >= added.length) {
    if (row) added.push(row);
  } else if (row) added[index] = row;
  else added.splice(index, 1);
  return { ...e, added };
}

/**
 * The `/table/update` steps for `e`: stored rows from the highest index down (a change is a pop
 * and an insert at the same place, a removal a pop), so no step moves a row a later step names;
 * then the added rows, appended in order.
 */
export function tableUpdates(e: RowEdits): TableUpdate[] {
  const indexes = [...new Set([...e.changed.keys(), ...e.removed])].sort((a, b) => b - a);
  const out: TableUpdate[] = [];
  for (const index of indexes) {
    out.push({ pop: { index } });
    const row = e.changed.get(index);
    if (row && !e.removed.has(index)) out.push({ insert: { index, row } });
  }
  for (const row of e.added) out.push({ append: { row } });
  return out;
}

/** How a cell shows in the editor: strings as they are, anything else as JSON. */
export function cellSource(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/**
 * A cell's text back to a value. A column whose values are strings (`like`) takes the text as
 * typed; any other column reads it as JSON. An empty field leaves the cell out.
 */
export function parseCell(text: string, like: unknown): { value: unknown } | { error: string } | null {
  if (typeof like === 'string') return { value: text };
  if (text.trim() === '') return null;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return like === undefined ? { value: text } : { error: 'Not valid JSON (this column holds JSON values)' };
  }
}

/** The columns of a row editor: the dataset's, then the row's own in its order. */
export function editorColumns(columns: readonly string[], row: DatasetRow | null): string[] {
  return [...new Set([...columns, ...Object.keys(row ?? {})])];
}

/** The table digest of a dataset-like value (`rows: "weave:///…/table/<digest>"`), else null. */
export function rowsTable(val: unknown): string | null {
  const rows = (val as { rows?: unknown } | null)?.rows;
  const ref = typeof rows === 'string' ? parseRef(rows) : null;
  return ref?.kind === 'table' ? ref.digest : null;
}

/** A dataset as the clients publish it, its rows in the table `tableRef`. */
export function datasetValue(name: string, tableRef: string): Record<string, unknown> {
  return {
    _type: 'Dataset',
    _class_name: 'Dataset',
    _bases: ['Object', 'BaseModel'],
    name,
    description: null,
    rows: tableRef,
  };
}

/** A call field that becomes a dataset column. */
export interface FieldChoice {
  path: string;
  column: string;
  on: boolean;
}

/**
 * The fields a user may take from calls, each named after its last segment (`inputs.question` →
 * `question`), or after its whole path where two would share a name; all of them chosen.
 */
export function fieldChoices(paths: readonly string[]): FieldChoice[] {
  const last = (p: string) => splitPath(p).at(-1) ?? p;
  const uses = new Map<string, number>();
  for (const p of paths) uses.set(last(p), (uses.get(last(p)) ?? 0) + 1);
  return paths.map((path) => ({
    path,
    column: uses.get(last(path)) === 1 ? last(path) : splitPath(path).join('_'),
    on: true,
  }));
}

/** What is wrong with the chosen columns, or null. */
export function choicesProblem(choices: readonly FieldChoice[]): string | null {
  const on = choices.filter((c) => c.on);
  if (on.length === 0) return 'Choose at least one field';
  const seen = new Set<string>();
  for (const c of on) {
    const name = c.column.trim();
    if (!name) return `Name the column for ${c.path}`;
    if (seen.has(name)) return `Two fields would both be column “${name}”`;
    seen.add(name);
  }
  return null;
}

/** One dataset row per call, with the chosen fields under their column names (absent ones left out). */
export function rowsFromCalls(calls: readonly Call[], choices: readonly FieldChoice[]): DatasetRow[] {
  const on = choices.filter((c) => c.on);
  return calls.map((call) => {
    const row: DatasetRow = {};
    for (const c of on) {
      const v = cellValue(call, c.path);
      if (v !== undefined) row[c.column.trim()] = v;
    }
    return row;
  });
}
