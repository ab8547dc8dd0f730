import { uiTablesSql } from '../ui-schema.js';
import type { Migration } from './migration.js';

/** Web UI: browser sessions (`ui_sessions`) and the live tail's write order (`calls.change_seq`). */
export const migration: Migration = {
  id: 8,
  name: 'ui-sessions-and-change-seq',
  sqlite: uiTablesSql('sqlite'),
  postgres: uiTablesSql('postgres'),
};
