import { CALL_JSON_COLUMNS, type CallJsonColumn } from './call-fields.js';
import { checkCount, checkFieldPath, QUERY_LIMITS } from './query/limits.js';
import { splitFieldPath } from './query/parse.js';

/**
 * `expand_columns` of calls queries (docs/spec/calls.md §5.6): paths at which a stored object or op ref
 * is replaced by the value it names.
 *
 * Our choice where the spec leaves room: a ref expands when it names an object or op of the
 * call's own project by exact content digest and that version is live; its extra path is followed
 * as `/refs/read_batch` follows it (services/ref-resolver.ts), so a dataset row ref
 * (`…/object/<dataset>:<digest>/attr/rows/id/<row digest>`) expands to the row. Refs to other
 * projects, by alias or `latest`, and table or call refs stay as they are. Filters and sorts that
 * traverse an expanded path (store/sql/calls-query/expr.ts) resolve only refs without an extra path;
 * through a row ref they see the ref string.
 */

export interface ExpandPath {
  column: CallJsonColumn;
  /** Non-empty key path inside the column. */
  path: string[];
}

/** The usable entries, shallowest first (deeper paths may traverse shallower expansions). */
export function parseExpandColumns(entries: readonly string[] | null | undefined): ExpandPath[] {
  const out: ExpandPath[] = [];
  const seen = new Set<string>();
  checkCount(entries?.length ?? 0, QUERY_LIMITS.expandColumns, 'expand_columns');
  for (const entry of entries ?? []) {
    checkFieldPath(entry, 'expand_columns entry');
    const [head, ...path] = splitFieldPath(entry);
    if (!(CALL_JSON_COLUMNS as readonly string[]).includes(head) || path.length === 0) continue;
    const key = JSON.stringify([head, path]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ column: head as CallJsonColumn, path });
  }
  return out.sort((a, b) => a.path.length - b.path.length);
}

type Resolver = (ref: string) => Promise<unknown | undefined>;

/**
 * Replaces, in `root` (one parsed JSON column), the ref at each path by its resolved value;
 * an object value gains `_ref` with the original ref. `paths` are relative to the column and
 * applied in order, so a later, deeper path walks through an earlier expansion.
 */
export async function expandInValue(root: unknown, paths: string[][], resolve: Resolver): Promise<unknown> {
  for (const path of paths) {
    let container: unknown = root;
    for (const segment of path.slice(0, -1)) container = child(container, segment);
    const last = path.at(-1);
    if (last === undefined) continue;
    const current = child(container, last);
    if (typeof current !== 'string') continue;
    const resolved = await resolve(current);
    if (resolved === undefined) continue;
    const value =
      resolved !== null && typeof resolved === 'object' && !Array.isArray(resolved)
        ? { ...resolved, _ref: current }
        : resolved;
    if (Array.isArray(container)) container[Number(last)] = value;
    else (container as Record<string, unknown>)[last] = value;
  }
  return root;
}

/** A key of an object, or an index of an array (numeric segment), else undefined. */
function child(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
  if (value !== null && typeof value === 'object')
    return Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  return undefined;
}
