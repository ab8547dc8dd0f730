import type { Migration } from './migration.js';

/** Feedback (docs/spec/objects.md §7) and project LLM prices (docs/spec/objects.md §8). */
export const migration: Migration = {
  id: 3,
  name: 'feedback-and-prices',
  sqlite: String.raw`
  CREATE TABLE feedback (
    project_id TEXT NOT NULL,
    id TEXT NOT NULL,
    weave_ref TEXT NOT NULL,
    wb_user_id TEXT NOT NULL,
    creator TEXT,
    created_at INTEGER NOT NULL,
    feedback_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    annotation_ref TEXT,
    runnable_ref TEXT,
    call_ref TEXT,
    trigger_ref TEXT,
    queue_id TEXT,
    scorer_tags TEXT NOT NULL,
    scorer_tag_reasons TEXT NOT NULL,
    scorer_tag_confidences TEXT NOT NULL,
    scorer_ratings TEXT NOT NULL,
    scorer_rating_reasons TEXT NOT NULL,
    scorer_rating_confidences TEXT NOT NULL,
    span_agent_name TEXT NOT NULL,
    span_agent_version TEXT NOT NULL,
    span_status_code TEXT NOT NULL,
    span_conversation_id TEXT NOT NULL,
    span_trace_id TEXT NOT NULL,
    scorer_trace_id TEXT NOT NULL,
    PRIMARY KEY (project_id, id)
  );
  CREATE INDEX feedback_by_ref ON feedback (project_id, weave_ref);
  CREATE INDEX feedback_by_created ON feedback (project_id, created_at);
  CREATE TABLE llm_token_prices (
    project_id TEXT NOT NULL,
    id TEXT NOT NULL,
    pricing_level TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    llm_id TEXT NOT NULL,
    effective_date INTEGER NOT NULL,
    prompt_token_cost REAL NOT NULL,
    completion_token_cost REAL NOT NULL,
    cache_read_input_token_cost REAL NOT NULL,
    cache_creation_input_token_cost REAL NOT NULL,
    prompt_token_cost_unit TEXT NOT NULL,
    completion_token_cost_unit TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, id)
  );
  CREATE INDEX llm_token_prices_by_model ON llm_token_prices (project_id, llm_id, effective_date);
  `,
  postgres: String.raw`
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
`,
};
