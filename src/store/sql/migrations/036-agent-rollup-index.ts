import type { Migration } from './migration.js';

/**
 * The agents list (docs/spec/agents.md §7) from one index: the spans of each own agent name and
 * version with every column the roll-up sums, so a project's agents are counted without reading a
 * span row (at 100,000 spans the list read one row per agent span from the table).
 */
const SQL = `CREATE INDEX agent_spans_agent_rollup ON agent_spans (project_id, agent_name, agent_version,
  started_at, ended_at, operation_name, status_code, input_tokens, output_tokens)`;

export const migration: Migration = { id: 36, name: 'agent-rollup-index', sqlite: SQL, postgres: SQL };
