import path from 'node:path';
import type { Config } from '../config/config.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { TraceStore } from './types.js';

/** The embedded SQLite store's file. */
export function sqliteFile(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'heddle.sqlite');
}

/** Picks the adapter: PostgreSQL when a database URL is configured, else the embedded SQLite file. */
export async function createStore(config: Config): Promise<TraceStore> {
  if (config.databaseUrl) {
    const store = new PostgresStore({
      url: config.databaseUrl,
      readUrls: config.databaseReadUrls,
      replicaMaxWaitMs: config.readReplicaMaxWaitMs,
      maxPendingWrites: config.overload.maxStoreQueue,
    });
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    store.startRollupFolds();
    return store;
  }
  const store = new SqliteStore({
    file: sqliteFile(config),
    maxPendingWrites: config.overload.maxStoreQueue,
    indexCatchUp: true,
  });
  await store.migrate();
  return store;
}
