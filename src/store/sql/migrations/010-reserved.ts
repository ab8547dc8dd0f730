import type { Migration } from './migration.js';

/**
 * Placeholder: number 10 belongs to another branch (monitors). It keeps the list consecutive here,
 * as the SQLite runner requires, so migration 11 can be tested; it is dropped when that branch's 010
 * is merged.
 */
export const migration: Migration = { id: 10, name: 'reserved', sqlite: [], postgres: [] };
