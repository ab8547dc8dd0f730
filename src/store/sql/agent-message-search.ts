import { allTrigramsOf } from './core/fts-trigrams.js';
import { likeLiteral } from './core/like-pattern.js';
import type { MessageCandidates } from './core/sql-dialect.js';

/**
 * The message search index of migration 037 on the query side (docs/spec/agents.md §8). It proposes
 * candidate messages, a superset of the matches; the exact substring test stays in the query.
 */

/** A trigram index finds nothing for fewer than three characters, nor for a NUL. */
function indexable(needle: string): boolean {
  return !needle.includes('\u0000') && [...needle].length >= 3;
}

/** SQLite: the case-sensitive FTS5 trigram table, keyed by the message's rowid. */
export const sqliteMessageCandidates: MessageCandidates = (alias, needle) =>
  indexable(needle)
    ? {
        sql: `${alias}.rowid IN (SELECT rowid FROM agent_message_trigrams WHERE agent_message_trigrams MATCH \u0002)`,
        value: allTrigramsOf(needle),
      }
    : null;

/**
 * PostgreSQL: `LIKE` (case-sensitive on the `COLLATE "C"` column), which the `pg_trgm` GIN index
 * answers. `pg_trgm` takes trigrams only from runs of letters and digits (ASCII ones where the
 * database's character type is C), so a needle without three of them in a row would make it read
 * the whole index: such a needle scans the project's messages instead.
 */
export const postgresMessageCandidates: MessageCandidates = (alias, needle) =>
  indexable(needle) && /[A-Za-z0-9]{3}/.test(needle)
    ? { sql: `${alias}.content LIKE \u0002`, value: `%${likeLiteral(needle)}%` }
    : null;
