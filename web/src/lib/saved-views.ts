/**
 * Saved views of the traces page as Weave `SavedView` objects (the reference's builtin class:
 * `view_type`, `label`, `definition` with `filter`, `query`, `sort_by`, `columns` as paths, `pin`).
 * The definition also keeps the page's own URL state (`heddle_search`), so a view saved here loads
 * back exactly; a view written elsewhere loads what maps (op filter, roots only, sort, columns, pins).
 */
import { joinPath, splitPath } from './columns.js';
import {
  buildCallsQuery,
  parseTracesSearch,
  sortOf,
  type CallsFilter,
  type Query,
  type SortBy,
  type TracesSearch,
} from './query.js';

/** The object id of the project's default traces view (loaded when the page opens plain). */
export const DEFAULT_VIEW_ID = 'traces_default';
/** `?view=` value of the built-in view: no saved view applied, not even the default. */
export const BUILTIN_VIEW = 'builtin';

export interface SavedViewDefinition {
  filter?: CallsFilter | null;
  query?: Query | null;
  columns?: { path: (string | number)[]; label?: string | null }[] | null;
  pin?: { left: string[]; right: string[] } | null;
  sort_by?: SortBy[] | null;
  heddle_search?: TracesSearch;
}

export interface SavedViewVal {
  view_type: string;
  label: string;
  definition: SavedViewDefinition;
}

export interface SavedView extends SavedViewVal {
  object_id: string;
  digest: string;
  created_at: string;
}

/** The URL state a view keeps (not the live tail, the selection, or which view it came from). */
export function viewState(search: TracesSearch): TracesSearch {
  const { live: _live, view: _view, picked: _picked, ...rest } = search;
  return rest;
}

export function viewDefinition(projectId: string, search: TracesSearch): SavedViewDefinition {
  const state = viewState(search);
  const { filter, query } = buildCallsQuery(projectId, state);
  const def: SavedViewDefinition = { filter, query, sort_by: [sortOf(state)], heddle_search: state };
  if (state.cols) def.columns = state.cols.map((id) => ({ path: splitPath(id) }));
  if (state.pin) def.pin = { left: state.pin, right: [] };
  return def;
}

/** The page state a stored view gives, tagged with its id. */
export function searchOfView(view: Pick<SavedView, 'object_id' | 'definition'>): TracesSearch {
  const def = view.definition ?? {};
  if (def.heddle_search && typeof def.heddle_search === 'object')
    return { ...viewState(parseTracesSearch(def.heddle_search as Record<string, unknown>)), view: view.object_id };
  const raw: Record<string, unknown> = {};
  if (def.filter?.trace_roots_only !== true) raw.all = true;
  if (def.filter?.op_names?.length === 1) raw.op = def.filter.op_names[0];
  const sort = def.sort_by?.[0];
  if (sort) {
    raw.sort = sort.field;
    raw.dir = sort.direction;
  }
  if (def.columns) raw.cols = def.columns.filter((c) => Array.isArray(c.path)).map((c) => joinPath(c.path));
  if (def.pin?.left) raw.pin = def.pin.left;
  return { ...viewState(parseTracesSearch(raw)), view: view.object_id };
}

/** A new view's object id: `view-` and random letters (labels may repeat; ids may not). */
export function newViewId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `view-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Whether two page states show the same view (ignoring the live tail and the view tag). */
export function sameView(a: TracesSearch, b: TracesSearch): boolean {
  return JSON.stringify(sorted(viewState(a))) === JSON.stringify(sorted(viewState(b)));
}

function sorted(s: TracesSearch): [string, unknown][] {
  return Object.entries(s)
    .filter(([, v]) => v !== undefined)
    .sort(([x], [y]) => (x < y ? -1 : 1));
}
