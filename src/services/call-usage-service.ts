import type { CallField } from '../domain/call-fields.js';
import { usageEntries, type ModelUsage } from '../domain/llm-usage.js';
import type { SortKey } from '../domain/query/ast.js';
import {
  ownUsage,
  rollUp,
  usageObject,
  type AggregatedUsage,
  type CostFields,
  type UsageNode,
} from '../domain/usage-rollup.js';
import { InvalidRequestError, RequestTooLargeError } from '../errors/app-error.js';
import type { CallsUsageReq, TraceUsageReq } from '../schemas/calls-usage.js';
import type { CallRow, CallRowColumn, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { checkFilter, compileWhere } from './call-query-service.js';
import { NO_PRICE_BOOK, NO_PRICES, usageCosts, type PriceBook, type PriceLookup } from './price-lookup.js';
import type { ProjectAccess } from './project-access.js';

/** Default `limit` of both endpoints (docs/spec/calls.md §4.10, §4.11). */
export const DEFAULT_USAGE_LIMIT = 10_000;
/** Ids per `IN (…)` list sent to the store. */
const ID_CHUNK = 1000;

const USAGE_COLUMNS: CallRowColumn[] = ['parent_id', 'ended_at', 'summary'];
const BY_TRACE: SortKey<CallField>[] = [
  { field: { kind: 'column', name: 'trace_id', type: 'string' }, direction: 'asc' },
];
const NO_COSTS: CostFields = {
  prompt_tokens_total_cost: null,
  completion_tokens_total_cost: null,
  cache_read_input_tokens_total_cost: null,
  cache_creation_input_tokens_total_cost: null,
};
const ZERO_COSTS: CostFields = {
  prompt_tokens_total_cost: 0,
  completion_tokens_total_cost: 0,
  cache_read_input_tokens_total_cost: 0,
  cache_creation_input_tokens_total_cost: 0,
};

export interface UsageResult {
  call_usage: Record<string, Record<string, AggregatedUsage>>;
  unfinished_call_ids: string[];
  /**
   * With `include_costs`: models of the rolled-up calls that had no price, sorted (our addition).
   * Their cost fields read 0.0 as §4.10 says; this list tells that 0.0 apart from a real price.
   */
  unpriced_models?: string[];
}

/** A book that remembers the models it found no price for. */
function recordingMisses(book: PriceBook, missing: Set<string>): PriceBook {
  return {
    find: (model, startedAt) => {
      const price = book.find(model, startedAt);
      if (!price) missing.add(model);
      return price;
    },
  };
}

const unpricedField = (includeCosts: boolean, missing: Set<string>): Pick<UsageResult, 'unpriced_models'> =>
  includeCosts ? { unpriced_models: [...missing].sort() } : {};

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function checkLimit(limit: number | undefined): number {
  const value = limit ?? DEFAULT_USAGE_LIMIT;
  if (value < 1) throw new InvalidRequestError('Limit must be a positive integer');
  return value;
}

/** Cost fields per §4.10 step 4: null without `include_costs`; with it, from the price or 0.0 when the model has none. */
function costFields(includeCosts: boolean, prices: PriceBook, startedAt: number): (u: ModelUsage) => CostFields {
  if (!includeCosts) return () => NO_COSTS;
  return (u) => {
    const price = prices.find(u.model, startedAt);
    return price ? usageCosts(u, price) : ZERO_COSTS;
  };
}

/** Usage roll-ups over parent links (docs/spec/calls.md §4.10, §4.11). */
export class CallUsageService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly prices: PriceLookup = NO_PRICES,
  ) {}

  #node(row: CallRow, includeCosts: boolean, prices: PriceBook): UsageNode {
    return {
      id: row.id,
      parent_id: row.parent_id,
      own: ownUsage(usageEntries(row.summary), costFields(includeCosts, prices, row.started_at)),
    };
  }

  /**
   * `/calls/usage`: the requested calls' usage rolled up over their whole traces. Traces stream
   * one at a time (the store orders by trace), so memory holds one trace; a trace with more than
   * `limit` calls fails the request with 413 rather than giving a partial answer.
   */
  async callsUsage(caller: Caller, req: CallsUsageReq): Promise<UsageResult> {
    this.access.assertCanRead(caller, req.project_id);
    const limit = checkLimit(req.limit);
    const ids = [...new Set(req.call_ids)];
    // a Map, not an object, so that ids such as "__proto__" stay plain keys
    const usage = new Map<string, Record<string, AggregatedUsage>>(ids.map((id) => [id, {}]));
    const unfinished: string[] = [];
    if (ids.length === 0) return { call_usage: {}, unfinished_call_ids: [] };
    const includeCosts = req.include_costs === true;
    const missing = new Set<string>();
    const prices = includeCosts
      ? recordingMisses(await this.prices.forProject(req.project_id), missing)
      : NO_PRICE_BOOK;
    const traceIds = await this.#tracesOf(req.project_id, ids);
    const wanted = new Set(ids);
    const finishTrace = (nodes: UsageNode[]): void => {
      const totals = rollUp(nodes);
      for (const node of nodes) if (wanted.has(node.id)) usage.set(node.id, usageObject(totals.get(node.id)));
    };
    for (const chunk of chunks(traceIds, ID_CHUNK)) {
      const rows = this.store.calls.query({
        project_id: req.project_id,
        filter: { trace_ids: chunk },
        sort_by: BY_TRACE,
        columns: USAGE_COLUMNS,
      });
      let trace: string | null = null;
      let nodes: UsageNode[] = [];
      for await (const row of rows) {
        if (row.trace_id !== trace) {
          finishTrace(nodes);
          trace = row.trace_id;
          nodes = [];
        }
        if (nodes.length >= limit) throw new RequestTooLargeError();
        nodes.push(this.#node(row, includeCosts, prices));
        if (row.ended_at == null) unfinished.push(row.id);
      }
      finishTrace(nodes);
    }
    return {
      call_usage: Object.fromEntries(usage),
      unfinished_call_ids: unfinished.sort(),
      ...unpricedField(includeCosts, missing),
    };
  }

  /** Distinct traces of the visible calls among `ids`, sorted. */
  async #tracesOf(projectId: string, ids: string[]): Promise<string[]> {
    const traces = new Set<string>();
    for (const chunk of chunks(ids, ID_CHUNK)) {
      for await (const row of this.store.calls.query({
        project_id: projectId,
        filter: { call_ids: chunk },
        sort_by: [],
        columns: [],
      })) {
        traces.add(row.trace_id);
      }
    }
    return [...traces].sort();
  }

  /**
   * `/trace/usage`: calls selected as `/calls/stream_query` would (default order, at most
   * `limit`), each rolled up over the selected calls only.
   */
  async traceUsage(caller: Caller, req: TraceUsageReq): Promise<UsageResult> {
    this.access.assertCanRead(caller, req.project_id);
    const limit = checkLimit(req.limit);
    const includeCosts = req.include_costs === true;
    const rows = this.store.calls.query({
      project_id: req.project_id,
      filter: checkFilter(req.filter),
      where: compileWhere(req.query),
      limit,
      columns: USAGE_COLUMNS,
    });
    const missing = new Set<string>();
    const prices = includeCosts
      ? recordingMisses(await this.prices.forProject(req.project_id), missing)
      : NO_PRICE_BOOK;
    const nodes: UsageNode[] = [];
    const unfinished: string[] = [];
    for await (const row of rows) {
      nodes.push(this.#node(row, includeCosts, prices));
      if (row.ended_at == null) unfinished.push(row.id);
    }
    const totals = rollUp(nodes);
    const callUsage = Object.fromEntries(nodes.map((node) => [node.id, usageObject(totals.get(node.id))]));
    return { call_usage: callUsage, unfinished_call_ids: unfinished.sort(), ...unpricedField(includeCosts, missing) };
  }
}
