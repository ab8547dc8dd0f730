import {
  AGENT_FLOAT_COLUMNS,
  AGENT_INT_COLUMNS,
  AGENT_STRING_COLUMNS,
  type AgentSpanRecord,
} from '../../store/agent-types.js';

/** An open span with every column at its storage default (docs/spec/agents.md §0 "Read defaults", §2.7). */
export function emptySpan(
  fields: Partial<AgentSpanRecord> & Pick<AgentSpanRecord, 'project_id' | 'trace_id' | 'span_id'>,
): AgentSpanRecord {
  const base: Record<string, unknown> = {};
  for (const c of AGENT_STRING_COLUMNS) base[c] = '';
  for (const c of [...AGENT_INT_COLUMNS, ...AGENT_FLOAT_COLUMNS]) base[c] = 0;
  return {
    ...(base as Pick<AgentSpanRecord, (typeof AGENT_STRING_COLUMNS)[number]>),
    ...(base as Pick<AgentSpanRecord, (typeof AGENT_INT_COLUMNS)[number] | (typeof AGENT_FLOAT_COLUMNS)[number]>),
    parent_span_id: '',
    span_name: '',
    span_kind: 'UNSPECIFIED',
    started_at: 0,
    ended_at: null,
    status_code: 'UNSET',
    status_message: '',
    finish_reasons: [],
    request_stop_sequences: [],
    eval_trial_index: null,
    wb_user_id: '',
    wb_run_id: '',
    wb_run_step: 0,
    wb_run_step_end: 0,
    details: {
      reasoning_content: '',
      tool_description: '',
      tool_definitions: '',
      input_messages: [],
      output_messages: [],
      system_instructions: [],
      tool_call_arguments: '',
      tool_call_result: '',
      compaction_summary: '',
      content_refs: [],
      artifact_refs: [],
      object_refs: [],
    },
    custom: { custom_attrs_string: {}, custom_attrs_int: {}, custom_attrs_float: {}, custom_attrs_bool: {} },
    raw_span_dump: '',
    ...fields,
  };
}
