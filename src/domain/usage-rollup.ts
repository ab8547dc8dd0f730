import type { ModelUsage } from './llm-usage.js';

/**
 * Usage roll-ups over parent links for `/calls/usage` and `/trace/usage` (docs/spec/calls.md §4.10
 * steps 4–5, §4.11): each call's own usage per model, then every call's usage plus that of all its
 * descendants.
 */

/** `LLMAggregatedUsage` of the wire: token counts, and costs (null when costs were not asked for). */
export interface AggregatedUsage {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  prompt_tokens_total_cost: number | null;
  completion_tokens_total_cost: number | null;
  cache_read_input_tokens_total_cost: number | null;
  cache_creation_input_tokens_total_cost: number | null;
}

export type UsageByModel = Map<string, AggregatedUsage>;

export type CostFields = Pick<
  AggregatedUsage,
  | 'prompt_tokens_total_cost'
  | 'completion_tokens_total_cost'
  | 'cache_read_input_tokens_total_cost'
  | 'cache_creation_input_tokens_total_cost'
>;

const COUNT_KEYS = [
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
] as const;
const COST_KEYS = [
  'prompt_tokens_total_cost',
  'completion_tokens_total_cost',
  'cache_read_input_tokens_total_cost',
  'cache_creation_input_tokens_total_cost',
] as const;

/**
 * One call's own usage. `total_tokens` of 0 or missing becomes prompt + completion. An entry with
 * nothing counted is dropped unless it carries a non-zero cost. `costs` gives each entry's cost
 * fields (all null when costs were not requested).
 */
export function ownUsage(entries: readonly ModelUsage[], costs: (entry: ModelUsage) => CostFields): UsageByModel {
  const out: UsageByModel = new Map();
  for (const u of entries) {
    const total =
      u.total_tokens === null || u.total_tokens === 0 ? u.prompt_tokens + u.completion_tokens : u.total_tokens;
    const usage: AggregatedUsage = {
      requests: u.requests,
      prompt_tokens: u.prompt_tokens,
      completion_tokens: u.completion_tokens,
      total_tokens: total,
      cache_read_input_tokens: u.cache_read_input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      ...costs(u),
    };
    const counted = COUNT_KEYS.some((key) => usage[key] !== 0);
    const costed = COST_KEYS.some((key) => usage[key] !== null && usage[key] !== 0);
    if (counted || costed) out.set(u.model, usage);
  }
  return out;
}

function addInto(target: UsageByModel, source: UsageByModel): void {
  for (const [model, usage] of source) {
    const current = target.get(model);
    if (!current) {
      target.set(model, { ...usage });
      continue;
    }
    for (const key of COUNT_KEYS) current[key] += usage[key];
    for (const key of COST_KEYS) {
      const a = current[key];
      const b = usage[key];
      current[key] = a === null && b === null ? null : (a ?? 0) + (b ?? 0);
    }
  }
}

export interface UsageNode {
  id: string;
  parent_id: string | null;
  own: UsageByModel;
}

/**
 * Every node's own usage plus that of all its descendants among `nodes` (a parent outside the
 * set links nothing). Parent links come from clients, so a cycle is cut where it is found.
 */
export function rollUp(nodes: readonly UsageNode[]): Map<string, UsageByModel> {
  const children = new Map<string, string[]>();
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const node of nodes) {
    if (node.parent_id === null || !byId.has(node.parent_id)) continue;
    const list = children.get(node.parent_id) ?? [];
    list.push(node.id);
    children.set(node.parent_id, list);
  }
  const totals = new Map<string, UsageByModel>();
  const entered = new Set<string>();
  for (const root of nodes) {
    if (entered.has(root.id)) continue;
    // iterative post-order: a node is totalled once all its children are
    const stack: Array<{ id: string; expanded: boolean }> = [{ id: root.id, expanded: false }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (!top.expanded) {
        top.expanded = true;
        entered.add(top.id);
        for (const child of children.get(top.id) ?? [])
          if (!entered.has(child)) stack.push({ id: child, expanded: false });
        continue;
      }
      stack.pop();
      const total: UsageByModel = new Map();
      addInto(total, byId.get(top.id)!.own);
      for (const child of children.get(top.id) ?? []) {
        const childTotal = totals.get(child);
        if (childTotal) addInto(total, childTotal);
      }
      totals.set(top.id, total);
    }
  }
  return totals;
}

/** A usage map as the JSON object of `call_usage[id]`. */
export function usageObject(usage: UsageByModel | undefined): Record<string, AggregatedUsage> {
  return usage ? Object.fromEntries(usage) : {};
}
