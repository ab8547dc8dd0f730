import type { Migration } from './migration.js';

/**
 * The hourly roll-up of calls behind `/calls/stats` (docs/call-rollups.md): sums per project, UTC
 * hour, op, status and model scope, and a latency histogram per the same group. `calls.rolled_up`
 * says whether a row's contribution is in the roll-up: the call writers set it with every write,
 * the backfill job sets it on rows written before this migration. `call_rollup_state` holds whether
 * the roll-up covers every row; a database without calls starts complete.
 */
const KEY = `project_id text COLLATE "C" NOT NULL,
  hour bigint NOT NULL,
  op_name text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  scope smallint NOT NULL,
  model text COLLATE "C" NOT NULL`;

const TABLES = `CREATE TABLE call_rollups (
  ${KEY},
  calls bigint NOT NULL,
  errors bigint NOT NULL,
  latency_count bigint NOT NULL,
  latency_sum bigint NOT NULL,
  latency_nonzero bigint NOT NULL,
  usage_rows bigint NOT NULL,
  input_tokens double precision NOT NULL,
  output_tokens double precision NOT NULL,
  total_tokens double precision NOT NULL,
  cache_read_tokens double precision NOT NULL,
  cache_creation_tokens double precision NOT NULL,
  PRIMARY KEY (project_id, hour, op_name, status, scope, model)
);
CREATE TABLE call_rollup_latency (
  ${KEY},
  bin integer NOT NULL,
  calls bigint NOT NULL,
  PRIMARY KEY (project_id, hour, op_name, status, scope, model, bin)
);
CREATE TABLE call_rollup_state (
  name text COLLATE "C" PRIMARY KEY,
  complete smallint NOT NULL,
  updated_at bigint NOT NULL
);
INSERT INTO call_rollup_state (name, complete, updated_at)
  SELECT 'calls_hourly', CASE WHEN EXISTS (SELECT 1 FROM calls) THEN 0 ELSE 1 END, 0;`;

export const migration: Migration = {
  id: 15,
  name: 'call-rollups',
  sqlite: ['ALTER TABLE calls ADD COLUMN rolled_up INTEGER NOT NULL DEFAULT 0;', TABLES.replaceAll(' COLLATE "C"', '')],
  postgres: ['ALTER TABLE calls ADD COLUMN rolled_up smallint NOT NULL DEFAULT 0;', TABLES],
};
