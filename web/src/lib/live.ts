import type { Call } from './call.js';

/**
 * Merges incoming calls into the live rows: a call already present is replaced in place by its
 * newer state (the stream sends a call again when it ends or is renamed), a new one goes ahead of
 * the existing ones, newest first; capped.
 */
export function mergeLive(existing: readonly Call[], incoming: readonly Call[], cap = 1000): Call[] {
  const latest = new Map<string, Call>();
  for (const c of incoming) latest.set(c.id, c);
  const out = existing.map((c) => {
    const next = latest.get(c.id);
    if (next === undefined) return c;
    latest.delete(c.id);
    return next;
  });
  const fresh = [...latest.values()].sort((a, b) => b.started_at.localeCompare(a.started_at));
  return [...fresh, ...out].slice(0, cap);
}

/** Rows already loaded, each replaced by its newer state from the live stream when there is one. */
export function patchRows(rows: readonly Call[], updates: ReadonlyMap<string, Call>): Call[] {
  if (updates.size === 0) return rows as Call[];
  return rows.map((c) => updates.get(c.id) ?? c);
}
