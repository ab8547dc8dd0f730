import type { Migration } from './migration.js';

/**
 * An index for agent message search (docs/spec/agents.md §8: a case-sensitive literal substring).
 * Without one, a search read every message of the project (276 ms at 1M spans on SQLite). The index
 * only proposes candidate messages; the exact test stays in the query
 * (sql/agent-message-search.ts), so results are those of the scan.
 *
 * - SQLite: `agent_message_trigrams`, an FTS5 trigram table keyed by the message's rowid:
 *   case-sensitive, no positions (a needle is searched as the AND of its trigrams), contentless. It is
 *   kept by row triggers, so every path that writes or deletes messages (span writes, span and
 *   project deletion, retention, import) keeps it without knowing of it. The rowids are stable
 *   because Heddle never runs `VACUUM` (the same holds for the calls' `call_text_trigrams`).
 * - PostgreSQL: a `pg_trgm` GIN index on the content, which answers `LIKE '%…%'`, led by the project
 *   (`btree_gin`, as the calls' `call_texts_by_trigram` of migration 017), so every index of a
 *   per-project table leads with `project_id`.
 */
export const migration: Migration = {
  id: 37,
  name: 'agent-message-search',
  sqlite: String.raw`
  CREATE VIRTUAL TABLE agent_message_trigrams USING fts5(
    content, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1, detail = none
  );
  INSERT INTO agent_message_trigrams (rowid, content) SELECT rowid, content FROM agent_span_messages;
  CREATE TRIGGER agent_span_messages_indexed AFTER INSERT ON agent_span_messages BEGIN
    INSERT INTO agent_message_trigrams (rowid, content) VALUES (new.rowid, new.content);
  END;
  CREATE TRIGGER agent_span_messages_unindexed AFTER DELETE ON agent_span_messages BEGIN
    DELETE FROM agent_message_trigrams WHERE rowid = old.rowid;
  END;
  CREATE TRIGGER agent_span_messages_reindexed AFTER UPDATE OF content ON agent_span_messages BEGIN
    DELETE FROM agent_message_trigrams WHERE rowid = old.rowid;
    INSERT INTO agent_message_trigrams (rowid, content) VALUES (new.rowid, new.content);
  END;
  `,
  postgres: `CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE EXTENSION IF NOT EXISTS btree_gin;
  CREATE INDEX agent_span_messages_by_trigram ON agent_span_messages
    USING gin (project_id, content gin_trgm_ops) WITH (fastupdate = on);`,
};
