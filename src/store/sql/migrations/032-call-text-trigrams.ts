import type { Migration } from './migration.js';

/**
 * SQLite: the substring index again, as `call_text_trigrams`, an FTS5 trigram table with
 * `detail=none` (issue 30, docs/query-performance.md "Substrings"). `call_text_fts` (migration 017)
 * kept every trigram's positions so that a needle could be searched as a phrase; writing them was
 * most of the call indexer's time (about 60 % of a step), and the index only proposes candidates for
 * the exact test anyway. Without positions a needle is searched as the AND of its trigrams: a few
 * more candidates, about half the cost of writing an entry.
 *
 * The indexer writes only the new table from here. The old one keeps the entries it had, and a
 * query searches both (calls-query/text.ts `sqliteTextCandidates`), so an upgraded store needs no
 * pass over its calls: an entry of a call indexed again later only adds a candidate. PostgreSQL's
 * `pg_trgm` index is unchanged.
 */
export const migration: Migration = {
  id: 32,
  name: 'call-text-trigrams',
  sqlite: String.raw`
  CREATE VIRTUAL TABLE call_text_trigrams USING fts5(
    text, tokenize = 'trigram', content = '', contentless_delete = 1, detail = none
  );
  `,
  postgres: [],
};
