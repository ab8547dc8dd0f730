import { createRequire } from 'node:module';
import { choosePrice } from '../domain/costs.js';
import { parseIsoMicros } from '../domain/time.js';
import type { CostRow, CostStore } from '../store/types.js';
import type { PriceBook, PriceLookup } from './price-lookup.js';

/**
 * The price lookup behind include_costs, /calls/stats costs and the usage roll-ups: the
 * project's rows from the store plus the built-in default rows shipped in
 * src/data/default-prices.json (docs/spec/objects.md §8.1). Defaults live in memory, not in the table,
 * so they can be corrected by shipping a new file; they are never returned by /cost/query.
 */

interface DefaultPriceFile {
  prices: Array<
    Omit<
      CostRow,
      | 'id'
      | 'pricing_level'
      | 'pricing_level_id'
      | 'effective_date'
      | 'created_by'
      | 'created_at'
      | 'prompt_token_cost_unit'
      | 'completion_token_cost_unit'
    > & { effective_date: string; source: string }
  >;
}

/** The default rows as price records (`created_by: "system"`, created at their effective date). */
export function loadDefaultPrices(): CostRow[] {
  const require = createRequire(import.meta.url);
  const file = require('../data/default-prices.json') as DefaultPriceFile;
  return file.prices.map((p, i) => {
    const effective = parseIsoMicros(p.effective_date);
    if (effective === null) throw new Error(`default-prices.json row ${i}: bad effective_date ${p.effective_date}`);
    return {
      id: `default-${i}`,
      pricing_level: 'default',
      pricing_level_id: 'default',
      provider_id: p.provider_id,
      llm_id: p.llm_id,
      effective_date: effective,
      prompt_token_cost: p.prompt_token_cost,
      completion_token_cost: p.completion_token_cost,
      cache_read_input_token_cost: p.cache_read_input_token_cost,
      cache_creation_input_token_cost: p.cache_creation_input_token_cost,
      prompt_token_cost_unit: 'USD',
      completion_token_cost_unit: 'USD',
      created_by: 'system',
      created_at: effective,
    };
  });
}

/** A book whose prices are full records (units, dates, level), for `summary.weave.costs`. */
export interface RecordPriceBook extends PriceBook {
  find(model: string, startedAt: number): CostRow | null;
}

function groupByModel(rows: readonly CostRow[]): Map<string, CostRow[]> {
  const out = new Map<string, CostRow[]>();
  for (const row of rows) {
    const list = out.get(row.llm_id);
    if (list) list.push(row);
    else out.set(row.llm_id, [row]);
  }
  return out;
}

export class StorePriceLookup implements PriceLookup {
  readonly #defaults: Map<string, CostRow[]>;

  constructor(
    private readonly costs: CostStore,
    defaults: readonly CostRow[] = loadDefaultPrices(),
  ) {
    this.#defaults = groupByModel(defaults);
  }

  /** Loads the project's rows once; lookups then run in memory. */
  async forProject(projectId: string): Promise<RecordPriceBook> {
    const own = groupByModel(await this.costs.forModels(projectId, null));
    const defaults = this.#defaults;
    return {
      find(model: string, startedAt: number): CostRow | null {
        const candidates = [...(own.get(model) ?? []), ...(defaults.get(model) ?? [])];
        return choosePrice(candidates, startedAt);
      },
    };
  }
}

/** A lookup whose books return full price records. */
export interface RecordPriceLookup {
  forProject(projectId: string): Promise<RecordPriceBook>;
}

/** No prices anywhere (tests and tools that build services without a price table). */
export const NO_RECORD_PRICES: RecordPriceLookup = { forProject: async () => ({ find: () => null }) };
