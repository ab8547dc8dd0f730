/**
 * DDL of the web UI's needs, one migration per backend:
 * - `ui_sessions`: browser sessions made from an API key (token stored as its SHA-256 hash). A
 *   global table, not per project; looked up with its key on every cookie request, so revoking the
 *   key ends its sessions on every node.
 * - `calls.change_seq`: the live tail's write order, stamped at every start, end and rename. On
 *   SQLite a counter bumped once per write (`change_counters`, single writer, so commit order); on
 *   PostgreSQL the writing transaction's id (`pg_current_xact_id()`), read back only below the
 *   oldest one still running in the database (postgres-dialect.ts changeHorizon). Calls written before this migration have
 *   none and never appear in a tail.
 */
const SESSIONS = `
CREATE TABLE ui_sessions (
  token_hash text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX ui_sessions_by_key ON ui_sessions (api_key_id);
CREATE INDEX ui_sessions_by_expiry ON ui_sessions (expires_at);
ALTER TABLE calls ADD COLUMN change_seq bigint;
CREATE INDEX calls_by_change ON calls (project_id, change_seq, id);
`;

const SQLITE_COUNTER = `
CREATE TABLE change_counters (
  name text PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO change_counters (name, value) VALUES ('calls', 0);
`;

export function uiTablesSql(kind: 'sqlite' | 'postgres'): string {
  if (kind === 'postgres') return SESSIONS;
  return `${SESSIONS.replace(/ COLLATE "C"/g, '')}${SQLITE_COUNTER}`;
}
