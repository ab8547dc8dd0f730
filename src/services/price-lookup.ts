import type { ModelUsage } from '../domain/llm-usage.js';

/**
 * Where the analytics services get LLM prices (docs/spec/calls.md §2.10, docs/spec/objects.md §8.5).
 *
 * Prices do not exist yet: the price table comes with the costs API. Until then the services use
 * NO_PRICES, which finds no price for any model, so every cost reads as "no price". Replacing it
 * with a store-backed lookup is the only change the costs work needs here.
 */

/** Unit prices (per token) of one price record. */
export interface LlmPrice {
  prompt_token_cost: number;
  completion_token_cost: number;
  cache_read_input_token_cost: number;
  cache_creation_input_token_cost: number;
}

/** The prices visible to one project, loaded once per request. */
export interface PriceBook {
  /**
   * The price for `model` on a call started at `startedAt` (µs): records effective at or before
   * that instant first, then project level before default level, then the latest effective date.
   * Null when the model has no price.
   */
  find(model: string, startedAt: number): LlmPrice | null;
}

export interface PriceLookup {
  forProject(projectId: string): Promise<PriceBook>;
}

/** A book without prices. */
export const NO_PRICE_BOOK: PriceBook = { find: () => null };

/** The lookup in use until prices exist: no model has a price. */
export const NO_PRICES: PriceLookup = { forProject: async () => NO_PRICE_BOOK };

/** The `*_total_cost` fields of `LLMAggregatedUsage` / `summary.weave.costs` (docs/spec/objects.md §8.5 step 4). */
export interface UsageCosts {
  prompt_tokens_total_cost: number;
  completion_tokens_total_cost: number;
  cache_read_input_tokens_total_cost: number;
  cache_creation_input_tokens_total_cost: number;
}

/** Costs of one model's usage at one price; cached prompt tokens are charged at the cache prices only. */
export function usageCosts(usage: ModelUsage, price: LlmPrice): UsageCosts {
  const uncachedPrompt = usage.prompt_tokens - usage.cache_read_input_tokens - usage.cache_creation_input_tokens;
  return {
    prompt_tokens_total_cost: uncachedPrompt * price.prompt_token_cost,
    completion_tokens_total_cost: usage.completion_tokens * price.completion_token_cost,
    cache_read_input_tokens_total_cost: usage.cache_read_input_tokens * price.cache_read_input_token_cost,
    cache_creation_input_tokens_total_cost: usage.cache_creation_input_tokens * price.cache_creation_input_token_cost,
  };
}
