/** A structural diff of two JSON values, as flat paths (for comparing two object versions). */

export interface DiffEntry {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  left?: unknown;
  right?: unknown;
}

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] =>
  v !== null && typeof v === 'object' && Object.keys(v).length > 0;

/** Leaves of a value by dot path (`a.b[2].c`); empty objects and arrays are leaves. */
export function flatten(
  value: unknown,
  prefix = '',
  out = new Map<string, unknown>(),
  limit = 20_000,
): Map<string, unknown> {
  if (out.size >= limit) return out;
  if (!isContainer(value)) {
    out.set(prefix || '(value)', value);
    return out;
  }
  if (Array.isArray(value)) value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out, limit));
  else
    for (const [k, v] of Object.entries(value)) {
      const key = /^[A-Za-z_][\w-]*$/.test(k) ? k : JSON.stringify(k);
      flatten(v, prefix ? `${prefix}.${key}` : key, out, limit);
    }
  return out;
}

/** Paths whose leaves differ between `left` and `right`, in the order they first appear. */
export function diffValues(left: unknown, right: unknown): DiffEntry[] {
  const a = flatten(left);
  const b = flatten(right);
  const out: DiffEntry[] = [];
  for (const [path, l] of a) {
    if (!b.has(path)) out.push({ path, kind: 'removed', left: l });
    else if (JSON.stringify(l) !== JSON.stringify(b.get(path)))
      out.push({ path, kind: 'changed', left: l, right: b.get(path) });
  }
  for (const [path, r] of b) if (!a.has(path)) out.push({ path, kind: 'added', right: r });
  return out;
}
