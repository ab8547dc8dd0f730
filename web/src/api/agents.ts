import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { postJson } from './client.js';
import { keys } from './keys.js';

/**
 * The Agents API reads (docs/spec/agents.md). Its answers are free-form objects on the server's
 * schema, so their shapes are written here, only the fields the pages show.
 */

export interface AgentRow {
  agent_name: string;
  agent_version?: string;
  invocation_count: number;
  span_count: number;
  total_duration_ms: number;
  error_count: number;
  first_seen: string;
  last_seen: string;
}

/** A row of `/agents/spans/query` with `group_by`. */
export interface SpanGroup {
  group_keys: Record<string, string | number | boolean | null>;
  span_count: number;
  invocation_count: number;
  conversation_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  total_duration_ms: number;
  error_count: number;
  agent_names: string[];
  agent_versions: string[];
  request_models: string[];
  first_seen: string;
  last_seen: string;
  metrics: Record<string, number | null>;
  first_message: { role: string; text: string } | null;
  last_message: { role: string; text: string } | null;
  total_cost_usd: number | null;
}

export interface ChatMessage {
  type: 'user_message' | 'assistant_message' | 'tool_call' | 'agent_start' | 'context_compacted' | 'agent_handoff';
  span_id: string | null;
  agent_name: string;
  agent_version: string | null;
  status_code: string | null;
  status_message: string | null;
  started_at: string;
  user_message: { text: string } | null;
  assistant_message: {
    text: string;
    model: string;
    reasoning_content: string;
    input_tokens: number;
    output_tokens: number;
    total_cost_usd: number | null;
    duration_ms: number;
    status: string;
  } | null;
  tool_call: {
    tool_name: string;
    tool_arguments: string | null;
    tool_result: string | null;
    duration_ms: number;
    status: string;
  } | null;
  agent_start: { model: string; status: string } | null;
  context_compacted: {
    compaction_summary: string | null;
    compaction_items_before: number;
    compaction_items_after: number;
  } | null;
  agent_handoff: Record<string, unknown> | null;
}

export interface ChatTurn {
  trace_id: string;
  agent_name: string;
  agent_version: string;
  status_code: string;
  started_at: string;
  total_duration_ms: number | null;
  total_input_tokens: number;
  total_output_tokens: number;
  total_cost_usd: number | null;
  messages: ChatMessage[];
}

export interface ConversationChat {
  conversation_id: string;
  turns: ChatTurn[];
  total_turns: number;
  has_more: boolean;
  total_cost_usd: number | null;
}

export interface SearchHit {
  span_id: string;
  trace_id: string;
  role: string;
  content_preview: string;
  started_at: string;
}

export interface SearchResult {
  conversation_id: string;
  conversation_name: string;
  agent_name: string;
  matched_messages: SearchHit[];
  last_activity: string;
}

const eq = (field: string, value: string) => ({ $expr: { $eq: [{ $getField: field }, { $literal: value }] } });

/** Every agent of the project (own names), most recently seen first. */
export function useAgents(projectId: string) {
  return useQuery({
    queryKey: keys.agents(projectId, 'list'),
    queryFn: ({ signal }) =>
      postJson<{ agents: AgentRow[]; total_count: number }>(
        '/agents/query',
        { project_id: projectId, sort_by: [{ field: 'last_seen', direction: 'desc' }], limit: 1000 },
        signal,
      ),
  });
}

/**
 * Spans grouped by attributed agent (or agent and version): tokens, turns (distinct traces) and
 * conversations over every span an agent owns, which `/agents/query` (own spans only) does not sum.
 */
export function useAgentRollups(projectId: string, byVersion: string | null) {
  return useQuery({
    queryKey: keys.agents(projectId, 'rollups', byVersion),
    queryFn: ({ signal }) =>
      postJson<{ groups: SpanGroup[] }>(
        '/agents/spans/query',
        {
          project_id: projectId,
          query: byVersion == null ? null : eq('agent_name', byVersion),
          group_by: byVersion == null ? [{ key: 'agent_name' }] : [{ key: 'agent_name' }, { key: 'agent_version' }],
          measures: [
            { alias: 'turns', aggregation: 'count_distinct', value: { key: 'trace_id' }, value_type: 'string' },
          ],
          include_costs: true,
          limit: 1000,
        },
        signal,
      ),
  });
}

export function useAgentVersions(projectId: string, agentName: string | null) {
  return useQuery({
    queryKey: keys.agents(projectId, 'versions', agentName),
    enabled: agentName != null,
    queryFn: ({ signal }) =>
      postJson<{ versions: AgentRow[] }>(
        '/agents/agent-versions/query',
        {
          project_id: projectId,
          agent_name: agentName!,
          sort_by: [{ field: 'last_seen', direction: 'desc' }],
          limit: 1000,
        },
        signal,
      ),
  });
}

/** Conversations (spans grouped by conversation), of one agent or all, newest activity first. */
export function useConversations(projectId: string, agentName: string | null) {
  return useQuery({
    queryKey: keys.agents(projectId, 'conversations', agentName),
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      postJson<{ groups: SpanGroup[]; total_count: number }>(
        '/agents/spans/query',
        {
          project_id: projectId,
          query: agentName == null ? null : eq('agent_name', agentName),
          group_by: [{ key: 'conversation_id' }],
          measures: [
            { alias: 'turns', aggregation: 'count_distinct', value: { key: 'trace_id' }, value_type: 'string' },
          ],
          sort_by: [{ field: 'last_seen', direction: 'desc' }],
          include_costs: true,
          limit: 500,
        },
        signal,
      ),
  });
}

/** A conversation as chat, one page of up to 50 turns, oldest first. */
export function useConversationChat(projectId: string, conversationId: string, page: number) {
  return useQuery({
    queryKey: keys.agents(projectId, 'chat', conversationId, page),
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      postJson<ConversationChat>(
        '/agents/conversations/chat',
        { project_id: projectId, conversation_id: conversationId, limit: 50, offset: page * 50 },
        signal,
      ),
  });
}

/** Message search, results grouped by conversation. */
export function useAgentSearch(projectId: string, text: string) {
  return useQuery({
    queryKey: keys.agents(projectId, 'search', text),
    enabled: text !== '',
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      postJson<{ results: SearchResult[]; total_conversations: number }>(
        '/agents/search',
        { project_id: projectId, query: text, limit: 50 },
        signal,
      ),
  });
}

export interface CustomAttr {
  source: 'custom_attrs_string' | 'custom_attrs_int' | 'custom_attrs_float' | 'custom_attrs_bool';
  key: string;
  span_count: number;
  value_type: string;
}

export interface AgentSpan {
  trace_id: string;
  span_id: string;
  span_name: string;
  started_at: string;
  ended_at: string | null;
  status_code: string;
  operation_name: string;
  agent_name: string;
  request_model: string;
  tool_name: string;
  conversation_id: string;
  input_tokens: number;
  output_tokens: number;
  custom_attrs_string: Record<string, string>;
  custom_attrs_int: Record<string, number>;
  custom_attrs_float: Record<string, number>;
  custom_attrs_bool: Record<string, boolean>;
}

export interface StatsAnswer {
  columns: { name: string; role: string; metric?: string; aggregation?: string }[];
  rows: Record<string, string | number | null>[];
}

/** The custom attributes seen on the project's spans, for the explorer's extra columns. */
export function useCustomAttrs(projectId: string) {
  return useQuery({
    queryKey: keys.agents(projectId, 'custom-attrs'),
    queryFn: ({ signal }) =>
      postJson<{ attributes: CustomAttr[] }>(
        '/agents/spans/custom-attrs/schema',
        { project_id: projectId, limit: 200 },
        signal,
      ),
  });
}

/** The newest spans with the chosen custom-attribute columns (ungrouped). */
export function useAgentSpans(projectId: string, attrs: { source: CustomAttr['source']; key: string }[]) {
  return useQuery({
    queryKey: keys.agents(projectId, 'spans', attrs),
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      postJson<{ spans: AgentSpan[]; total_count: number }>(
        '/agents/spans/query',
        {
          project_id: projectId,
          custom_attr_columns: attrs,
          sort_by: [{ field: 'started_at', direction: 'desc' }],
          limit: 200,
        },
        signal,
      ),
  });
}

/** Spans grouped by one field, with the standard measures. */
export function useSpanGroups(projectId: string, group: string | null) {
  return useQuery({
    queryKey: keys.agents(projectId, 'span-groups', group),
    enabled: group != null,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      postJson<{ groups: SpanGroup[]; total_count: number }>(
        '/agents/spans/query',
        {
          project_id: projectId,
          group_by: [{ key: group! }],
          sort_by: [{ field: 'span_count', direction: 'desc' }],
          limit: 200,
        },
        signal,
      ),
  });
}

/** Span count and tokens per day over `[start, end)`, split by `group` when given. */
export function useSpanStats(projectId: string, start: string, end: string, group: string | null) {
  return useQuery({
    queryKey: keys.agents(projectId, 'stats', start, end, group),
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      postJson<StatsAnswer>(
        '/agents/spans/stats',
        {
          project_id: projectId,
          start,
          end,
          granularity: 86_400,
          group_by: group ? [{ key: group }] : [],
          group_limit: 10,
          metrics: [
            { alias: 'spans', value_type: 'string', value: { key: 'span_id' }, aggregations: ['count'] },
            { alias: 'input_tokens', value_type: 'number', value: { key: 'input_tokens' }, aggregations: ['sum'] },
            { alias: 'output_tokens', value_type: 'number', value: { key: 'output_tokens' }, aggregations: ['sum'] },
          ],
        },
        signal,
      ),
  });
}
