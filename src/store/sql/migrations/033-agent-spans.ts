import type { Migration } from './migration.js';

/**
 * Agent spans (docs/spec/agents.md §2.6, docs/agents.md): one row per OTLP span with the typed GenAI
 * columns of §2.3, keyed by (project_id, trace_id, span_id).
 *
 * - `attr_agent_name`, `attr_agent_version`, `attr_agent_id`, `attr_conversation_id` hold the
 *   read-time attribution of §3.2, recomputed by the writer for every trace a write touches, so
 *   filters, groups and the chat's turn lookup use an index instead of a self-join per read.
 * - `details` is the JSON of the detail fields (§3.1: messages, tool arguments and results …),
 *   `custom_attrs` the four typed maps of §2.5 as one JSON object, read back only when asked.
 * - `agent_span_messages` holds the message occurrences of §2.6 that search reads (§8), with a
 *   digest of the content for the collapse rule; `agent_span_attrs` one row per custom attribute,
 *   for the custom-attribute schema (§5) and filters on custom keys (§3.3).
 *
 * Indexes: a project's spans by time (the spans page), by attributed agent and conversation (the
 * agents list, the conversation chat), by own agent name (§7 rolls up raw rows), and the
 * occurrences by time (search pages newest first).
 */
const POSTGRES = `
CREATE TABLE agent_spans (
  project_id text COLLATE "C" NOT NULL,
  trace_id text COLLATE "C" NOT NULL,
  span_id text COLLATE "C" NOT NULL,
  parent_span_id text COLLATE "C" NOT NULL,
  span_name text COLLATE "C" NOT NULL,
  span_kind text COLLATE "C" NOT NULL,
  started_at bigint NOT NULL,
  ended_at bigint,
  status_code text COLLATE "C" NOT NULL,
  status_message text COLLATE "C" NOT NULL,
  operation_name text COLLATE "C" NOT NULL,
  provider_name text COLLATE "C" NOT NULL,
  agent_name text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C" NOT NULL,
  agent_description text COLLATE "C" NOT NULL,
  agent_version text COLLATE "C" NOT NULL,
  request_model text COLLATE "C" NOT NULL,
  response_model text COLLATE "C" NOT NULL,
  response_id text COLLATE "C" NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  reasoning_tokens bigint NOT NULL,
  cache_creation_input_tokens bigint NOT NULL,
  cache_read_input_tokens bigint NOT NULL,
  conversation_id text COLLATE "C" NOT NULL,
  conversation_name text COLLATE "C" NOT NULL,
  tool_name text COLLATE "C" NOT NULL,
  tool_type text COLLATE "C" NOT NULL,
  tool_call_id text COLLATE "C" NOT NULL,
  finish_reasons text NOT NULL,
  error_type text COLLATE "C" NOT NULL,
  request_temperature double precision NOT NULL,
  request_max_tokens bigint NOT NULL,
  request_top_p double precision NOT NULL,
  request_frequency_penalty double precision NOT NULL,
  request_presence_penalty double precision NOT NULL,
  request_seed bigint NOT NULL,
  request_stop_sequences text NOT NULL,
  request_choice_count bigint NOT NULL,
  output_type text COLLATE "C" NOT NULL,
  compaction_items_before bigint NOT NULL,
  compaction_items_after bigint NOT NULL,
  server_address text COLLATE "C" NOT NULL,
  server_port bigint NOT NULL,
  eval_run_id text COLLATE "C" NOT NULL,
  eval_predict_and_score_call_id text COLLATE "C" NOT NULL,
  eval_kind text COLLATE "C" NOT NULL,
  eval_row_digest text COLLATE "C" NOT NULL,
  eval_example_id text COLLATE "C" NOT NULL,
  eval_trial_index bigint,
  eval_evaluation_name text COLLATE "C" NOT NULL,
  parent_call_id text COLLATE "C" NOT NULL,
  parent_call_trace_id text COLLATE "C" NOT NULL,
  wb_user_id text COLLATE "C" NOT NULL,
  wb_run_id text COLLATE "C" NOT NULL,
  wb_run_step bigint NOT NULL,
  wb_run_step_end bigint NOT NULL,
  attr_agent_name text COLLATE "C" NOT NULL,
  attr_agent_version text COLLATE "C" NOT NULL,
  attr_agent_id text COLLATE "C" NOT NULL,
  attr_conversation_id text COLLATE "C" NOT NULL,
  details text NOT NULL,
  custom_attrs text NOT NULL,
  raw_span_dump text NOT NULL,
  PRIMARY KEY (project_id, trace_id, span_id)
);
CREATE INDEX agent_spans_started ON agent_spans (project_id, started_at, span_id);
CREATE INDEX agent_spans_attr_agent ON agent_spans (project_id, attr_agent_name, started_at);
CREATE INDEX agent_spans_attr_conversation ON agent_spans (project_id, attr_conversation_id, started_at);
CREATE INDEX agent_spans_own_agent ON agent_spans (project_id, agent_name, agent_version, started_at);
CREATE INDEX agent_spans_own_conversation ON agent_spans (project_id, conversation_id, started_at, span_id);
CREATE INDEX agent_spans_span ON agent_spans (project_id, span_id);
CREATE TABLE agent_span_messages (
  project_id text COLLATE "C" NOT NULL,
  trace_id text COLLATE "C" NOT NULL,
  span_id text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  role text COLLATE "C" NOT NULL,
  content text COLLATE "C" NOT NULL,
  content_digest text COLLATE "C" NOT NULL,
  started_at bigint NOT NULL,
  PRIMARY KEY (project_id, trace_id, span_id, seq)
);
CREATE INDEX agent_span_messages_started ON agent_span_messages (project_id, started_at, span_id, seq);
CREATE TABLE agent_span_attrs (
  project_id text COLLATE "C" NOT NULL,
  trace_id text COLLATE "C" NOT NULL,
  span_id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  attr_key text COLLATE "C" NOT NULL,
  value_text text COLLATE "C",
  value_num double precision,
  PRIMARY KEY (project_id, trace_id, span_id, source, attr_key)
);
CREATE INDEX agent_span_attrs_key ON agent_span_attrs (project_id, source, attr_key);
`;

export const migration: Migration = {
  id: 33,
  name: 'agent-spans',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', '').replaceAll('double precision', 'real'),
  postgres: POSTGRES,
};
