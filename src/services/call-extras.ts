import { costEntry } from '../domain/costs.js';
import { usageEntries, type ModelUsage } from '../domain/llm-usage.js';
import type { CallRow } from '../store/types.js';
import type { RecordPriceBook } from './price-table.js';

/**
 * `summary.weave.costs` of one call (docs/spec/objects.md §8.5): an entry per usage model that has a
 * price. Models without any price get no entry, as the spec says, and are listed in
 * `summary.weave.unpriced_models` (our addition), so "no price" is never mistaken for a cost of 0.
 */
export function costExtras(row: CallRow, book: RecordPriceBook): Record<string, unknown> {
  return usageCostExtras(usageEntries(row.summary), row.started_at, book);
}

/** `costExtras` of usage entries already read, priced as of `startedAt` (µs). */
export function usageCostExtras(
  usages: readonly ModelUsage[],
  startedAt: number,
  book: RecordPriceBook,
): Record<string, unknown> {
  const costs: Record<string, unknown> = {};
  const unpriced: string[] = [];
  for (const usage of usages) {
    const price = book.find(usage.model, startedAt);
    if (price) costs[usage.model] = costEntry(usage, price);
    else unpriced.push(usage.model);
  }
  const out: Record<string, unknown> = {};
  if (Object.keys(costs).length > 0) out.costs = costs;
  if (unpriced.length > 0) out.unpriced_models = unpriced;
  return out;
}
