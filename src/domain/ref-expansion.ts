import { CALL_JSON_COLUMNS, type CallJsonColumn } from './call-fields.js';
import { splitFieldPath } from './query/parse.js';
import { REF_PREFIX } from './refs.js';

/**
 * `expand_columns` of calls queries (calls spec §5.6): paths at which a stored object or op ref
 * is replaced by the value of the object version it names.
 *
 * Our choice where the spec leaves room: a ref expands when it names an object or op of the
 * call's own project by exact content digest (`weave:///<entity>/<project>/object/<name>:<digest>`,
 * no further path) and that version is live. Refs to other projects, by alias or `latest`, with
 * extra path segments, and table or call refs stay as they are; the SQL compiler applies the same
 * rule when filters and sorts traverse an expanded path.
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
  for (const entry of entries ?? []) {
    const [head, ...path] = splitFieldPath(entry);
    if (!(CALL_JSON_COLUMNS as readonly string[]).includes(head) || path.length === 0) continue;
    const key = JSON.stringify([head, path]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ column: head as CallJsonColumn, path });
  }
  return out.sort((a, b) => a.path.length - b.path.length);
}

/** The object a ref names when it may expand (see the module comment), else null. */
export function expandableRef(ref: string, projectId: string): { kind: 'object' | 'op'; objectId: string; digest: string } | null {
  for (const kind of ['object', 'op'] as const) {
    const prefix = `${REF_PREFIX}${projectId}/${kind}/`;
    if (!ref.startsWith(prefix)) continue;
    const rest = ref.slice(prefix.length);
    const colon = rest.indexOf(':');
    if (colon <= 0 || rest.includes('/')) return null;
    const digest = rest.slice(colon + 1);
    return digest === '' ? null : { kind, objectId: rest.slice(0, colon), digest };
  }
  return null;
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
    const last = path[path.length - 1];
    const current = child(container, last);
    if (typeof current !== 'string') continue;
    const resolved = await resolve(current);
    if (resolved === undefined) continue;
    const value = resolved !== null && typeof resolved === 'object' && !Array.isArray(resolved) ? { ...resolved, _ref: current } : resolved;
    if (Array.isArray(container)) container[Number(last)] = value;
    else (container as Record<string, unknown>)[last] = value;
  }
  return root;
}

/** A key of an object, or an index of an array (numeric segment), else undefined. */
function child(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
  if (value !== null && typeof value === 'object') return Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  return undefined;
}
