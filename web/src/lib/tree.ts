import type { Call } from './call.js';

export interface TreeIndex {
  byId: Map<string, Call>;
  children: Map<string, string[]>;
  roots: string[];
  start: number;
  end: number;
}

/** Indexes a trace's calls: children by parent (sorted by start), roots (no parent, or parent missing). */
export function indexTrace(calls: readonly Call[]): TreeIndex {
  const byId = new Map<string, Call>();
  for (const c of calls) byId.set(c.id, c);
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  // the server writes every time in one ISO format, so the earliest start and latest end are found
  // by comparing text and only those two are parsed (Date.parse of every call costs tens of ms)
  let first: string | null = null;
  let last: string | null = null;
  for (const c of calls) {
    const ended = c.ended_at ?? c.started_at;
    if (first === null || c.started_at < first) first = c.started_at;
    if (last === null || ended > last) last = ended;
    if (c.parent_id && byId.has(c.parent_id) && c.parent_id !== c.id) {
      let list = children.get(c.parent_id);
      if (!list) children.set(c.parent_id, (list = []));
      list.push(c.id);
    } else roots.push(c.id);
  }
  // plain code-unit order: start times share one ISO format, and localeCompare costs about a
  // microsecond a call, seconds over a 50,000-call trace
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const byStart = (a: string, b: string) => order(byId.get(a)!.started_at, byId.get(b)!.started_at) || order(a, b);
  // the trace view asks for rows in start order: most lists are sorted already
  const sort = (list: string[]) => {
    for (let i = 1; i < list.length; i++)
      if (byStart(list[i - 1]!, list[i]!) > 0) {
        list.sort(byStart);
        return;
      }
  };
  sort(roots);
  for (const list of children.values()) sort(list);
  let start = first === null ? NaN : Date.parse(first);
  let end = last === null ? NaN : Date.parse(last);
  if (!Number.isFinite(start) || !Number.isFinite(end)) start = end = 0;
  // Running calls extend to now so their bars are visible.
  for (const c of calls) if (!c.ended_at) end = Math.max(end, Date.now());
  return { byId, children, roots, start, end };
}

export interface TreeRow {
  id: string;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
}

/** Depth-first visible rows; iterative so a 10,000-deep chain cannot overflow the stack. */
export function flattenTree(index: TreeIndex, collapsed: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  const seen = new Set<string>();
  const stack: { id: string; depth: number }[] = [];
  for (let i = index.roots.length - 1; i >= 0; i--) stack.push({ id: index.roots[i]!, depth: 0 });
  while (stack.length > 0) {
    const { id, depth } = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const kids = index.children.get(id) ?? [];
    const expanded = !collapsed.has(id);
    rows.push({ id, depth, hasChildren: kids.length > 0, expanded });
    if (expanded) for (let i = kids.length - 1; i >= 0; i--) stack.push({ id: kids[i]!, depth: depth + 1 });
  }
  return rows;
}

/** Traces with more calls than this open with only their roots and first level shown. */
export const BIG_TRACE_CALLS = 1000;

/**
 * The calls a trace opens collapsed: none for a trace of up to BIG_TRACE_CALLS calls; for a bigger
 * one every call with children below the first level, so the tree starts as the root and the calls
 * it made (as Weave and Langfuse open big traces) and a subtree is flattened only once opened.
 */
export function initiallyCollapsed(index: TreeIndex): Set<string> {
  const out = new Set<string>();
  if (index.byId.size <= BIG_TRACE_CALLS) return out;
  for (const root of index.roots)
    for (const child of index.children.get(root) ?? []) if (index.children.has(child)) out.add(child);
  return out;
}

/** Ids of the calls on the path from a root to `id` (exclusive), so a selection can be revealed. */
export function ancestors(index: TreeIndex, id: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let cur = index.byId.get(id)?.parent_id;
  while (cur && index.byId.has(cur) && !seen.has(cur)) {
    seen.add(cur);
    out.push(cur);
    cur = index.byId.get(cur)!.parent_id;
  }
  return out;
}
