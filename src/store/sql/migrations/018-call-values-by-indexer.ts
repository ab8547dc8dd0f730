import type { Migration } from './migration.js';

/**
 * `call_values` (migration 016) is written by the call indexer with the substring index, no longer
 * by the call writers (docs/query-performance.md "Equality on an input field"): a call at or below
 * its project's `call_text_marks` mark has its text and its input leaves indexed. That holds for the
 * marks already moved only where every call below them has its leaves: those the writers stored,
 * and those of older calls that the backfill of migration 016 stored. While that backfill is still
 * pending (its `call_index_builds` row is there) some have none, so every mark is removed and the
 * indexer goes through the calls again (texts are replaced, leaves already there kept). No schema
 * change.
 */
export const migration: Migration = {
  id: 18,
  name: 'call-values-by-indexer',
  sqlite: 'DELETE FROM call_text_marks WHERE EXISTS (SELECT 1 FROM call_index_builds)',
  postgres: 'DELETE FROM call_text_marks WHERE EXISTS (SELECT 1 FROM call_index_builds)',
};
