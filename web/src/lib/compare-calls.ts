/**
 * Two or more calls side by side: each compared part (inputs, output, summary, attributes) as the
 * union of its leaf paths, every call's value at each path, and whether it differs from the
 * baseline call's.
 */
import { flatten } from './diff.js';

export interface CompareRow {
  path: string;
  /** One per call, in the calls' order; undefined where a call has no such path. */
  values: unknown[];
  /** Per call: its value differs from the baseline's (the baseline itself is never marked). */
  differs: boolean[];
  /** Some call differs from the baseline. */
  anyDiff: boolean;
}

/** Most paths a part shows; the rest are counted. */
export const MAX_COMPARE_PATHS = 1000;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function compareValues(values: readonly unknown[], base = 0): CompareRow[] {
  const flat = values.map((v) => flatten(v ?? null, '', new Map(), 5000));
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const m of flat)
    for (const p of m.keys())
      if (!seen.has(p)) {
        seen.add(p);
        paths.push(p);
      }
  return paths.map((path) => {
    const vals = flat.map((m) => m.get(path));
    const differs = vals.map(
      (v, i) => i !== base && (flat[i]!.has(path) !== flat[base]!.has(path) || !same(v, vals[base])),
    );
    return { path, values: vals, differs, anyDiff: differs.some(Boolean) };
  });
}

/** The `ids` search parameter: comma-separated call ids, deduplicated, at most `max`. */
export function parseCompareIds(raw: unknown, max = 8): string[] {
  if (typeof raw !== 'string') return [];
  return [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => /^[\w-]{1,128}$/.test(s)),
    ),
  ].slice(0, max);
}

/** One op's part of a trace: how many calls, how many failed, their summed latency. */
export interface OpShare {
  calls: number;
  errors: number;
  latencyMs: number;
}

/**
 * Two or more traces by op: every op name any of them ran (first-seen order), each trace's share,
 * and whether its call or error count differs from the baseline trace's.
 */
export function compareTraces(
  traces: readonly (readonly { op: string; error: boolean; latencyMs: number | null }[])[],
  base = 0,
): { op: string; shares: OpShare[]; differs: boolean[] }[] {
  const ops: string[] = [];
  const per = traces.map((calls) => {
    const m = new Map<string, OpShare>();
    for (const c of calls) {
      if (!m.has(c.op) && !ops.includes(c.op)) ops.push(c.op);
      const s = m.get(c.op) ?? { calls: 0, errors: 0, latencyMs: 0 };
      s.calls += 1;
      if (c.error) s.errors += 1;
      s.latencyMs += c.latencyMs ?? 0;
      m.set(c.op, s);
    }
    return m;
  });
  const none: OpShare = { calls: 0, errors: 0, latencyMs: 0 };
  return ops.map((op) => {
    const shares = per.map((m) => m.get(op) ?? none);
    const b = shares[base] ?? none;
    return { op, shares, differs: shares.map((s, i) => i !== base && (s.calls !== b.calls || s.errors !== b.errors)) };
  });
}
