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
  let start = Infinity;
  let end = -Infinity;
  for (const c of calls) {
    const s = Date.parse(c.started_at);
    const e = c.ended_at ? Date.parse(c.ended_at) : s;
    if (s < start) start = s;
    if (e > end) end = e;
    if (c.parent_id && byId.has(c.parent_id) && c.parent_id !== c.id) {
      let list = children.get(c.parent_id);
      if (!list) children.set(c.parent_id, (list = []));
      list.push(c.id);
    } else roots.push(c.id);
  }
  const byStart = (a: string, b: string) =>
    byId.get(a)!.started_at.localeCompare(byId.get(b)!.started_at) || a.localeCompare(b);
  roots.sort(byStart);
  for (const list of children.values()) list.sort(byStart);
  if (!Number.isFinite(start)) start = end = 0;
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
