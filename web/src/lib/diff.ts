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

export interface LineChange {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Above this many line pairs the LCS table is not built: the whole text shows as replaced. */
const MAX_LINE_PAIRS = 4_000_000;

/** One step of an alignment: an item both sequences have (`i` in the first, `j` in the second), or one only one has. */
export type AlignStep =
  { kind: 'same'; i: number; j: number } | { kind: 'removed'; i: number } | { kind: 'added'; j: number };

/**
 * The longest common subsequence of `a` and `b` under `same`, as steps in reading order (at a tie
 * the first sequence's item goes first). Builds an a×b table: callers bound the sizes.
 */
export function alignSequences<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): AlignStep[] {
  // lcs[i][j]: length of the common subsequence of a[i..] and b[j..]
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = same(a[i]!, b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: AlignStep[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (same(a[i]!, b[j]!)) out.push({ kind: 'same', i: i++, j: j++ });
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: 'removed', i: i++ });
    else out.push({ kind: 'added', j: j++ });
  }
  while (i < a.length) out.push({ kind: 'removed', i: i++ });
  while (j < b.length) out.push({ kind: 'added', j: j++ });
  return out;
}

/** A line diff of two texts (longest common subsequence), in reading order. */
export function diffLines(left: string, right: string): LineChange[] {
  const a = left.split('\n');
  const b = right.split('\n');
  if (a.length * b.length > MAX_LINE_PAIRS)
    return [
      ...a.map((text) => ({ kind: 'removed' as const, text })),
      ...b.map((text) => ({ kind: 'added' as const, text })),
    ];
  return alignSequences(a, b, (x, y) => x === y).map((step) =>
    step.kind === 'added' ? { kind: 'added', text: b[step.j]! } : { kind: step.kind, text: a[step.i]! },
  );
}
