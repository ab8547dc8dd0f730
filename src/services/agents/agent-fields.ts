import { semconvAliases } from '../../ingest/otel/agent-span.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import {
  AGENT_FLOAT_COLUMNS,
  AGENT_INT_COLUMNS,
  AGENT_STRING_COLUMNS,
  CUSTOM_SOURCES,
  type AgentField,
  type CustomSource,
} from '../../store/agent-types.js';

/** Field names of the agents filter, sort and grouping (docs/spec/agents.md §3.3, §4.1). */

const STRING_COLUMNS = new Set<string>([
  ...AGENT_STRING_COLUMNS,
  'trace_id',
  'span_id',
  'parent_span_id',
  'span_name',
  'span_kind',
  'status_code',
  'status_message',
  'wb_user_id',
  'wb_run_id',
]);
const NUMBER_COLUMNS = new Set<string>([
  ...AGENT_INT_COLUMNS,
  ...AGENT_FLOAT_COLUMNS,
  'wb_run_step',
  'wb_run_step_end',
  'eval_trial_index',
]);
const DATETIME_COLUMNS = new Set(['started_at', 'ended_at']);
const ALIASES = semconvAliases();

function column(name: string): AgentField | null {
  if (STRING_COLUMNS.has(name)) return { kind: 'column', column: name, type: 'string' };
  if (NUMBER_COLUMNS.has(name)) return { kind: 'column', column: name, type: 'number' };
  if (DATETIME_COLUMNS.has(name)) return { kind: 'column', column: name, type: 'datetime' };
  return null;
}

/** §3.3 field resolution, in its order. */
export function resolveField(name: string): AgentField {
  const alias = ALIASES.get(name);
  if (alias !== undefined) {
    const resolved = column(alias);
    if (resolved !== null) return resolved;
    throw new InvalidRequestError(`cannot resolve field ${name}: ${alias} is not a filterable column`);
  }
  if (name === 'duration_ms' || name === 'total_tokens') return { kind: 'derived', key: name };
  const direct = column(name);
  if (direct !== null) return direct;
  for (const source of CUSTOM_SOURCES) {
    if (name.startsWith(`${source}.`)) {
      const key = name.slice(source.length + 1);
      if (key === '') throw new InvalidRequestError(`cannot resolve field ${name}: empty custom attribute key`);
      return { kind: 'custom', source, key };
    }
  }
  if (name === '') throw new InvalidRequestError('cannot resolve field: empty name');
  return { kind: 'custom', source: null, key: name };
}

/** The span columns a query may both sort and group by (§4.1, §4.2; column names, no semconv aliases). */
export const SPAN_IDENTITY_COLUMNS = [
  'operation_name',
  'provider_name',
  'agent_name',
  'agent_version',
  'request_model',
  'response_model',
  'tool_name',
  'tool_type',
  'conversation_id',
  'status_code',
  'error_type',
  'span_kind',
  'trace_id',
  'span_id',
  'wb_run_id',
] as const;

/** The measures every grouped row and agent row has (§4.2, §5): reserved names, sortable. */
export const AGGREGATE_NAMES = [
  'span_count',
  'invocation_count',
  'conversation_count',
  'total_input_tokens',
  'total_cache_creation_input_tokens',
  'total_cache_read_input_tokens',
  'total_output_tokens',
  'total_reasoning_tokens',
  'total_duration_ms',
  'error_count',
  'first_seen',
  'last_seen',
] as const;

/** §4.1 sortable columns (column names only, no semconv aliases). */
const SORTABLE = new Set([
  ...SPAN_IDENTITY_COLUMNS,
  'span_name',
  'started_at',
  'ended_at',
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_type',
  'request_temperature',
  'request_max_tokens',
  'request_top_p',
  'wb_run_step',
  'server_address',
]);

/** A §4.1 sort field; `custom` lists the requested custom columns (`<source>.<key>`). */
export function resolveSort(name: string, custom: Array<{ source: CustomSource; key: string }>): AgentField {
  if (SORTABLE.has(name)) return column(name)!;
  const hit = custom.find((c) => `${c.source}.${c.key}` === name);
  if (hit !== undefined) return { kind: 'custom', source: hit.source, key: hit.key };
  throw new InvalidRequestError(`Invalid sort field: ${name}`);
}
