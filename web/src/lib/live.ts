import type { Call } from './call.js';

/** Merges incoming calls ahead of the existing ones, dropping ids already present; capped. */
export function mergeLive(existing: readonly Call[], incoming: readonly Call[], cap = 1000): Call[] {
  const seen = new Set(existing.map((c) => c.id));
  const fresh: Call[] = [];
  for (const c of incoming) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    fresh.push(c);
  }
  fresh.sort((a, b) => b.started_at.localeCompare(a.started_at));
  return [...fresh, ...existing].slice(0, cap);
}
