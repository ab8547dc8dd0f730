import type { Config } from '../config/config.js';
import { createStore } from '../store/create-store.js';
import type { TraceStore } from '../store/types.js';
import { storeFailure, storeNotUpYet } from './startup-errors.js';

/** Pause between attempts to reach a PostgreSQL server that is not up yet. */
const DATABASE_RETRY_MS = 1_000;

/**
 * Opens the store; a database that cannot be used is a StartupError naming the setting. A
 * PostgreSQL server that is not up yet is retried for HEDDLE_DATABASE_WAIT_SECONDS (compose and
 * Kubernetes start a node beside its database), one line on stderr per ten attempts.
 */
export async function openStore(config: Config): Promise<TraceStore> {
  const deadline = Date.now() + config.databaseWaitSeconds * 1000;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createStore(config);
    } catch (error) {
      const retry = config.databaseUrl !== undefined && storeNotUpYet(error) && Date.now() < deadline;
      if (!retry) throw storeFailure(error, config) ?? error;
      if (attempt % 10 === 1)
        process.stderr.write(
          `heddle: ${storeFailure(error, config)?.message ?? 'PostgreSQL is not up yet'}; retrying for up to HEDDLE_DATABASE_WAIT_SECONDS=${config.databaseWaitSeconds}\n`,
        );
      await new Promise((resolve) => setTimeout(resolve, DATABASE_RETRY_MS));
    }
  }
}
