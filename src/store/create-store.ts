import path from 'node:path';
import type { Config } from '../config/config.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { TraceStore } from './types.js';

/** Picks the adapter: PostgreSQL when a database URL is configured, else the embedded SQLite file. */
export async function createStore(config: Config): Promise<TraceStore> {
  if (config.databaseUrl) {
    throw new Error('HEDDLE_DATABASE_URL is set, but the PostgreSQL store is not available in this build yet');
  }
  const store = new SqliteStore({ file: path.join(config.dataDir, 'heddle.sqlite') });
  await store.migrate();
  return store;
}
