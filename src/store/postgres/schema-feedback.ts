/** Feedback (objects spec §7) and project LLM prices (§8), laid out as in the SQLite adapter. */
export const FEEDBACK_TABLES_SQL = `
CREATE TABLE feedback (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  weave_ref text COLLATE "C" NOT NULL,
  wb_user_id text COLLATE "C" NOT NULL,
  creator text COLLATE "C",
  created_at bigint NOT NULL,
  feedback_type text COLLATE "C" NOT NULL,
  payload jsonb NOT NULL,
  annotation_ref text COLLATE "C",
  runnable_ref text COLLATE "C",
  call_ref text COLLATE "C",
  trigger_ref text COLLATE "C",
  queue_id text COLLATE "C",
  scorer_tags jsonb NOT NULL,
  scorer_tag_reasons jsonb NOT NULL,
  scorer_tag_confidences jsonb NOT NULL,
  scorer_ratings jsonb NOT NULL,
  scorer_rating_reasons jsonb NOT NULL,
  scorer_rating_confidences jsonb NOT NULL,
  span_agent_name text COLLATE "C" NOT NULL,
  span_agent_version text COLLATE "C" NOT NULL,
  span_status_code text COLLATE "C" NOT NULL,
  span_conversation_id text COLLATE "C" NOT NULL,
  span_trace_id text COLLATE "C" NOT NULL,
  scorer_trace_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX feedback_by_ref ON feedback (project_id, weave_ref);
CREATE INDEX feedback_by_created ON feedback (project_id, created_at);
CREATE TABLE llm_token_prices (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  pricing_level text COLLATE "C" NOT NULL,
  provider_id text COLLATE "C" NOT NULL,
  llm_id text COLLATE "C" NOT NULL,
  effective_date bigint NOT NULL,
  prompt_token_cost float8 NOT NULL,
  completion_token_cost float8 NOT NULL,
  cache_read_input_token_cost float8 NOT NULL,
  cache_creation_input_token_cost float8 NOT NULL,
  prompt_token_cost_unit text COLLATE "C" NOT NULL,
  completion_token_cost_unit text COLLATE "C" NOT NULL,
  created_by text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX llm_token_prices_by_model ON llm_token_prices (project_id, llm_id, effective_date);
`;
