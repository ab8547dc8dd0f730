import { formatMicros } from '../../domain/time.js';
import type { PriceBook } from '../price-lookup.js';
import {
  AGENT_FLOAT_COLUMNS,
  AGENT_INT_COLUMNS,
  AGENT_STRING_COLUMNS,
  CUSTOM_SOURCES,
  type AgentSpanRow,
  type CustomSource,
} from '../../store/agent-types.js';

/** `AgentSpanSchema` rows of docs/spec/agents.md §3.1. */

const COST_FIELDS = [
  'input_cost_usd',
  'output_cost_usd',
  'cache_read_cost_usd',
  'cache_creation_cost_usd',
  'total_cost_usd',
];

export interface RowOptions {
  details: boolean;
  custom: Array<{ source: CustomSource; key: string }>;
  /** With include_costs: the project's prices (§12). */
  prices?: PriceBook;
}

export interface SpanCosts {
  input_cost_usd: number;
  output_cost_usd: number;
  cache_read_cost_usd: number;
  cache_creation_cost_usd: number;
  total_cost_usd: number;
}

/** §12: the span's costs at the price of its model when it started; null when unpriced. */
export function spanCosts(row: AgentSpanRow, prices: PriceBook): SpanCosts | null {
  const model = row.response_model !== '' ? row.response_model : row.request_model;
  if (model === '') return null;
  const price = prices.find(model, row.started_at);
  if (price === null) return null;
  const creation = price.cache_creation_input_token_cost > 0 ? row.cache_creation_input_tokens : 0;
  const input = (row.input_tokens - row.cache_read_input_tokens - creation) * price.prompt_token_cost;
  const output = row.output_tokens * price.completion_token_cost;
  const read = row.cache_read_input_tokens * price.cache_read_input_token_cost;
  const created = row.cache_creation_input_tokens * price.cache_creation_input_token_cost;
  return {
    input_cost_usd: input,
    output_cost_usd: output,
    cache_read_cost_usd: read,
    cache_creation_cost_usd: created,
    total_cost_usd: input + output + read + created,
  };
}

/** Whole milliseconds between start and end, truncated, never negative, 0 when open (§9.1). */
export function durationMs(row: Pick<AgentSpanRow, 'started_at' | 'ended_at'>): number {
  if (row.ended_at === null || row.ended_at <= row.started_at) return 0;
  return Math.trunc((row.ended_at - row.started_at) / 1000);
}

export function spanRow(row: AgentSpanRow, options: RowOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    project_id: row.project_id,
    trace_id: row.trace_id,
    span_id: row.span_id,
    parent_span_id: row.parent_span_id,
    span_name: row.span_name,
    span_kind: row.span_kind,
    started_at: formatMicros(row.started_at),
    ended_at: row.ended_at === null ? null : formatMicros(row.ended_at),
    status_code: row.status_code,
    status_message: row.status_message,
  };
  for (const c of AGENT_STRING_COLUMNS) out[c] = row[c];
  for (const c of [...AGENT_INT_COLUMNS, ...AGENT_FLOAT_COLUMNS]) out[c] = row[c];
  // §3.2: identity as attributed
  out.agent_name = row.attr_agent_name;
  out.agent_version = row.attr_agent_version;
  out.agent_id = row.attr_agent_id;
  out.conversation_id = row.attr_conversation_id;
  Object.assign(out, {
    finish_reasons: row.finish_reasons,
    request_stop_sequences: row.request_stop_sequences,
    eval_trial_index: row.eval_trial_index,
    wb_user_id: row.wb_user_id,
    wb_run_id: row.wb_run_id,
    wb_run_step: row.wb_run_step,
    wb_run_step_end: row.wb_run_step_end,
  });
  delete out.agent_description;
  const d = row.details;
  Object.assign(out, {
    agent_description: row.agent_description,
    reasoning_content: options.details ? d.reasoning_content : null,
    tool_description: options.details ? d.tool_description : null,
    tool_definitions: options.details ? d.tool_definitions : null,
    input_messages: options.details ? d.input_messages : [],
    output_messages: options.details ? d.output_messages : [],
    system_instructions: options.details ? d.system_instructions : [],
    tool_call_arguments: options.details ? d.tool_call_arguments : null,
    tool_call_result: options.details ? d.tool_call_result : null,
    compaction_summary: options.details ? d.compaction_summary : null,
    content_refs: options.details ? d.content_refs : [],
    artifact_refs: options.details ? d.artifact_refs : [],
    object_refs: options.details ? d.object_refs : [],
    raw_span_dump: options.details ? row.raw_span_dump : null,
  });
  for (const source of CUSTOM_SOURCES) {
    const map: Record<string, unknown> = {};
    for (const c of options.custom)
      if (c.source === source && Object.hasOwn(row.custom[source], c.key)) map[c.key] = row.custom[source][c.key];
    out[source] = map;
  }
  const costs = options.prices === undefined ? null : spanCosts(row, options.prices);
  for (const c of COST_FIELDS) out[c] = costs === null ? null : costs[c as keyof SpanCosts];
  return out;
}
