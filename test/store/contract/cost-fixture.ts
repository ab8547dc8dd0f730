import type { CostRow } from '../../../src/domain/rows.js';

/** Prices and usage for the cost tests (calls-cost.test.ts, calls-cost-index.test.ts). */
export const T0 = 1_700_000_000_000_000;
export const DAY = 86_400_000_000;

export function price(p: string, id: string, llm: string, effective: number, costs: number[], createdAt = 1): CostRow {
  return {
    id,
    pricing_level: 'project',
    pricing_level_id: p,
    provider_id: 'test',
    llm_id: llm,
    effective_date: effective,
    prompt_token_cost: costs[0]!,
    completion_token_cost: costs[1]!,
    cache_read_input_token_cost: costs[2]!,
    cache_creation_input_token_cost: costs[3]!,
    prompt_token_cost_unit: 'USD',
    completion_token_cost_unit: 'USD',
    created_by: 'u',
    created_at: createdAt,
  };
}

/** Usage of several models: priced by the project, by the defaults, future-dated only, unpriced, odd shapes. */
export const MODELS = ['m-own', 'gpt-4o', 'gpt-4o-mini', 'm-future', 'm-none', '12', '3', 'claude-3-haiku-20240307'];

export function usageOf(rnd: () => number): unknown {
  const usage: Record<string, unknown> = {};
  const n = 1 + Math.floor(rnd() * 4);
  for (let k = 0; k < n; k++) {
    const model = MODELS[Math.floor(rnd() * MODELS.length)]!;
    const shape = Math.floor(rnd() * 6);
    const count = (): number => Math.floor(rnd() * 5_000) + (rnd() < 0.2 ? 0.5 : 0);
    usage[model] =
      shape === 0
        ? { prompt_tokens: count(), completion_tokens: count(), total_tokens: 1 }
        : shape === 1
          ? { input_tokens: count(), output_tokens: count(), cache_read_input_tokens: count() % 700 }
          : shape === 2
            ? { prompt_tokens: count(), cache_creation_input_tokens: count() % 300, completion_tokens: '7' }
            : shape === 3
              ? 'not an object'
              : shape === 4
                ? { prompt_tokens: count(), input_tokens: count(), completion_tokens: count(), output_tokens: 3 }
                : {};
  }
  return usage;
}
