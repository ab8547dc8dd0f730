import type { Operation } from '../domain/query/ast.js';

/** Agent spans (docs/spec/agents.md §2, §3): the stored row and the store interface. */

/** A stored message: docs/spec/agents.md §2.4. */
export interface AgentMessage {
  role: string;
  content: string;
  finish_reason: string;
}

/** The four typed custom-attribute maps of §2.5. */
export interface AgentCustomAttrs {
  custom_attrs_string: Record<string, string>;
  custom_attrs_int: Record<string, number>;
  custom_attrs_float: Record<string, number>;
  custom_attrs_bool: Record<string, boolean>;
}

export type CustomSource = keyof AgentCustomAttrs;
export const CUSTOM_SOURCES: readonly CustomSource[] = [
  'custom_attrs_string',
  'custom_attrs_int',
  'custom_attrs_float',
  'custom_attrs_bool',
];

/** The detail fields of §3.1, kept as one JSON document. */
export interface AgentSpanDetails {
  reasoning_content: string;
  tool_description: string;
  tool_definitions: string;
  input_messages: AgentMessage[];
  output_messages: AgentMessage[];
  system_instructions: string[];
  tool_call_arguments: string;
  tool_call_result: string;
  compaction_summary: string;
  content_refs: string[];
  artifact_refs: string[];
  object_refs: string[];
}

/** String columns of §2.3 filled from attributes (each `""` when unset). */
export const AGENT_STRING_COLUMNS = [
  'operation_name',
  'provider_name',
  'agent_name',
  'agent_id',
  'agent_description',
  'agent_version',
  'request_model',
  'response_model',
  'response_id',
  'conversation_id',
  'conversation_name',
  'tool_name',
  'tool_type',
  'tool_call_id',
  'error_type',
  'output_type',
  'server_address',
  'eval_run_id',
  'eval_predict_and_score_call_id',
  'eval_kind',
  'eval_row_digest',
  'eval_example_id',
  'eval_evaluation_name',
  'parent_call_id',
  'parent_call_trace_id',
] as const;

/** Integer columns of §2.3 (each 0 when unset). */
export const AGENT_INT_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'request_max_tokens',
  'request_seed',
  'request_choice_count',
  'compaction_items_before',
  'compaction_items_after',
  'server_port',
] as const;

export const AGENT_FLOAT_COLUMNS = [
  'request_temperature',
  'request_top_p',
  'request_frequency_penalty',
  'request_presence_penalty',
] as const;

export type AgentStringColumn = (typeof AGENT_STRING_COLUMNS)[number];
export type AgentIntColumn = (typeof AGENT_INT_COLUMNS)[number];
export type AgentFloatColumn = (typeof AGENT_FLOAT_COLUMNS)[number];

/** One agent span as ingest builds it and the store keeps it (times in microseconds). */
export type AgentSpanRecord = {
  project_id: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  span_name: string;
  span_kind: string;
  started_at: number;
  /** null while the span is open (§2.6). */
  ended_at: number | null;
  status_code: string;
  status_message: string;
  finish_reasons: string[];
  request_stop_sequences: string[];
  eval_trial_index: number | null;
  wb_user_id: string;
  wb_run_id: string;
  wb_run_step: number;
  wb_run_step_end: number;
  details: AgentSpanDetails;
  custom: AgentCustomAttrs;
  raw_span_dump: string;
} & Record<AgentStringColumn, string> &
  Record<AgentIntColumn | AgentFloatColumn, number>;

/** A stored row as reads see it: the record plus the attribution of §3.2. */
export type AgentSpanRow = AgentSpanRecord & {
  attr_agent_name: string;
  attr_agent_version: string;
  attr_agent_id: string;
  attr_conversation_id: string;
};

/** A field of a spans filter or sort, resolved by the agents service (docs/spec/agents.md §3.3). */
export type AgentField =
  | { kind: 'column'; column: string; type: 'string' | 'number' | 'datetime' }
  | { kind: 'derived'; key: 'duration_ms' | 'total_tokens' | 'is_error' | 'is_invocation' }
  | { kind: 'custom'; source: CustomSource | null; key: string };

/** The query-language tree over agent fields (src/domain/query/ast.ts). */
export type AgentFilter = Operation<AgentField>;

export interface AgentSpanQuery {
  projectId: string;
  filter: AgentFilter | null;
  /** Microseconds; `started_at >= after`, `< before`. */
  startedAfter: number | null;
  startedBefore: number | null;
  sort: Array<{ field: AgentField; direction: 'asc' | 'desc' }>;
  limit: number;
  offset: number;
}

export interface AgentRollupRow {
  agent_name: string;
  agent_version: string;
  invocation_count: number;
  span_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  total_duration_ms: number;
  error_count: number;
  first_seen: number;
  last_seen: number;
}

export interface AgentSearchQuery {
  projectId: string;
  text: string;
  traceId: string | null;
  conversationId: string | null;
  agentName: string | null;
  providerName: string | null;
  requestModel: string | null;
  roles: string[] | null;
  startedAfter: number | null;
  startedBefore: number | null;
  limit: number;
  offset: number;
}

export interface AgentSearchHit {
  trace_id: string;
  span_id: string;
  role: string;
  content: string;
  content_digest: string;
  started_at: number;
  conversation_id: string;
  conversation_name: string;
  agent_name: string;
}

export type AgentAggregation =
  'sum' | 'avg' | 'min' | 'max' | 'count' | 'count_distinct' | 'count_true' | 'count_false';

/** A resolved measure of a grouped query (§4.2). */
export interface AgentMeasure {
  alias: string;
  aggregation: AgentAggregation;
  value: AgentField | null;
  filter: AgentFilter | null;
}

/** A grouped spans query (§4.2), every name resolved by the service. */
export interface AgentGroupQuery extends Omit<AgentSpanQuery, 'sort'> {
  groupBy: Array<{ alias: string; field: AgentField }>;
  measures: AgentMeasure[];
  /** HAVING bounds on measures (index into `measures`), microseconds for date-times. */
  having: Array<{ measure: number; min: number | null; max: number | null }>;
  /** Names of group aliases, measure aliases or reserved aggregate names. */
  sort: Array<{ name: string; direction: 'asc' | 'desc' }>;
}

/** Agent spans over one of the SQL adapters (src/store/sql/agent-span-store.ts). */
export interface AgentSpanStore {
  /**
   * Stores spans, replacing any row with the same (project_id, trace_id, span_id) together with its
   * message occurrences and custom attributes (§2.6), then recomputes the attribution of every
   * touched trace (§3.2); one transaction.
   */
  write(records: AgentSpanRecord[]): Promise<void>;
  /** Stores an open span unless one with that key exists (§2.7); true when it was stored. */
  start(record: AgentSpanRecord): Promise<boolean>;
  /** Deletes the spans of a project whose span_id is one of `spanIds`, with their descendants (docs/spec/agents.md §1 R6). */
  deleteBySpanIds(projectId: string, spanIds: string[]): Promise<void>;
  /** A page of matching spans (attributed identity, §3.2) and the number of all matches. */
  spans(q: AgentSpanQuery): Promise<{ rows: AgentSpanRow[]; total: number }>;
  /**
   * §4.2 grouped rows: `group_<i>` keys, the reserved aggregates, `m_<i>` measures, JSON arrays for
   * the distinct-name lists; and the number of groups after HAVING.
   */
  groups(q: AgentGroupQuery): Promise<{ rows: Array<Record<string, unknown>>; total: number }>;
  /** Raw spans whose own conversation id is one of `ids`, in the time range (§4.2 conversation previews). */
  conversationPreviewSpans(
    projectId: string,
    ids: string[],
    startedAfter: number | null,
    startedBefore: number | null,
  ): Promise<AgentSpanRow[]>;
  /**
   * §6 inputs: per matching span its `started_at`, the group keys `group_<i>` and the values
   * `value_<i>` (NULL when absent), in no particular order.
   */
  statValues(
    q: Omit<AgentSpanQuery, 'sort' | 'limit' | 'offset'>,
    groupBy: AgentField[],
    values: AgentField[],
  ): Promise<Array<Record<string, unknown>>>;
  /** Distinct custom keys of the matching spans with their span counts, `span_count desc, key, source` (§5). */
  customAttrs(
    q: Omit<AgentSpanQuery, 'sort'>,
  ): Promise<Array<{ source: CustomSource; key: string; span_count: number }>>;
  /** §7: roll-ups of raw rows with a non-empty own agent name, per agent (or per version of one agent). */
  agents(q: {
    projectId: string;
    agentName: string | null;
    byVersion: boolean;
    sort: Array<{ field: string; direction: 'asc' | 'desc' }>;
    limit: number;
    offset: number;
  }): Promise<{ rows: AgentRollupRow[]; total: number }>;
  /** §8: matching occurrences newest first (collapsed when `text` is non-empty). */
  search(q: AgentSearchQuery): Promise<AgentSearchHit[]>;
  /** Every span of one trace, raw columns and details; `raw_span_dump` is '' (the chat never reads it). */
  traceSpans(projectId: string, traceId: string): Promise<AgentSpanRow[]>;
  /** §9.5: the page of turns (newest first) of a conversation and the number of all its turns. */
  conversationTurns(
    projectId: string,
    conversationId: string,
    limit: number,
    offset: number,
  ): Promise<{ traces: Array<{ trace_id: string; started_at: number }>; total: number }>;
  /** §10: the spans whose own conversation id is `conversationId`, `started_at asc, span_id asc`, the latest `cap`. */
  conversationSpans(
    projectId: string,
    conversationId: string,
    startedAfter: number | null,
    startedBefore: number | null,
    cap: number,
  ): Promise<AgentSpanRow[]>;
}
