import type { CostRow } from './rows.js';
import type { ModelUsage } from './llm-usage.js';
import { formatMicros } from './time.js';

/**
 * Choosing a price for a call and the `summary.weave.costs` entry it yields (docs/spec/objects.md §8.5,
 * docs/spec/calls.md §2.10). Pure: the candidate rows are loaded by the service.
 */

/**
 * The price in force for a call started at `startedAt`: rows effective at or before the start
 * first (a future-dated row is used only when nothing earlier exists), then project rows before
 * default rows, then the newest effective date. Null when there is no candidate.
 */
export function choosePrice(candidates: readonly CostRow[], startedAt: number): CostRow | null {
  let best: CostRow | null = null;
  const rank = (row: CostRow): [number, number, number] => [
    row.effective_date <= startedAt ? 0 : 1,
    row.pricing_level === 'project' ? 0 : 1,
    -row.effective_date,
  ];
  for (const row of candidates) {
    if (best === null) {
      best = row;
      continue;
    }
    const a = rank(row);
    const b = rank(best);
    for (let i = 0; i < 3; i += 1) {
      if (a[i] !== b[i]) {
        if (a[i]! < b[i]!) best = row;
        break;
      }
    }
  }
  return best;
}

/** One `summary.weave.costs[<llm_id>]` entry (docs/spec/objects.md §8.5 step 4). */
export function costEntry(usage: ModelUsage, price: CostRow): Record<string, unknown> {
  const uncachedPrompt = usage.prompt_tokens - usage.cache_read_input_tokens - usage.cache_creation_input_tokens;
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    requests: usage.requests,
    total_tokens: usage.total_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    prompt_token_cost: price.prompt_token_cost,
    completion_token_cost: price.completion_token_cost,
    cache_read_input_token_cost: price.cache_read_input_token_cost,
    cache_creation_input_token_cost: price.cache_creation_input_token_cost,
    prompt_tokens_total_cost: uncachedPrompt * price.prompt_token_cost,
    completion_tokens_total_cost: usage.completion_tokens * price.completion_token_cost,
    cache_read_input_tokens_total_cost: usage.cache_read_input_tokens * price.cache_read_input_token_cost,
    cache_creation_input_tokens_total_cost: usage.cache_creation_input_tokens * price.cache_creation_input_token_cost,
    prompt_token_cost_unit: price.prompt_token_cost_unit,
    completion_token_cost_unit: price.completion_token_cost_unit,
    effective_date: formatMicros(price.effective_date),
    provider_id: price.provider_id,
    pricing_level: price.pricing_level,
    pricing_level_id: price.pricing_level_id,
    created_at: formatMicros(price.created_at),
    created_by: price.created_by,
  };
}
