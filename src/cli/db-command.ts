import pg from 'pg';
import type { Config } from '../config/config.js';
import { planDistribution } from '../store/postgres/citus-distribution.js';
import { createStore } from '../store/create-store.js';
import { MIGRATIONS } from '../store/sql/migrations/index.js';
import { openStore } from './open-store.js';
import { storeFailure } from './startup-errors.js';
import { describeStore } from './store-label.js';
import { USAGE, UsageError } from './usage.js';

/**
 * `heddle db migrate`: brings the store's schema to this version's and exits (a Kubernetes Job or
 * an init step runs it before the nodes roll, so no node serves while another migrates). Waits for
 * PostgreSQL like `serve` does (HEDDLE_DATABASE_WAIT_SECONDS). Nodes migrate at start anyway, under
 * an advisory lock on PostgreSQL, so running it is optional and repeating it does nothing.
 */
async function migrateCommand(config: Config): Promise<void> {
  const store = await openStore(config);
  await store.close();
  const last = MIGRATIONS.at(-1)!;
  process.stdout.write(`store: ${describeStore(config)}\nschema at migration ${last.id} (${last.name})\n`);
}

/**
 * `heddle db distribute [--dry-run]`: shards the PostgreSQL store by project on Citus
 * (docs/scaling.md). Migrates first, so the plan covers every table of this version; then prints
 * each statement and, unless --dry-run, runs it. Safe to repeat: tables Citus already manages are
 * skipped, so after an upgrade the same command distributes the tables new migrations added.
 */
export async function dbCommand(config: Config, args: string[]): Promise<void> {
  const [sub, ...flags] = args;
  if (sub === 'migrate' && flags.length === 0) return migrateCommand(config);
  const unknown = flags.filter((f) => f !== '--dry-run');
  if (sub !== 'distribute' || unknown.length > 0) throw new UsageError(USAGE);
  const dryRun = flags.includes('--dry-run');
  if (config.databaseUrl === undefined)
    throw new UsageError('db distribute needs a PostgreSQL store: set HEDDLE_DATABASE_URL');

  const store = await createStore(config).catch((error: unknown) => {
    throw storeFailure(error, config) ?? error;
  });
  await store.close();
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    process.stderr.write(`store: ${describeStore(config)}\n`);
    const plan = await planDistribution(client);
    if (!plan.citus && !dryRun)
      throw new UsageError(
        'the citus extension is not installed in this database (CREATE EXTENSION citus); --dry-run prints the statements',
      );
    if (plan.alreadyDone.length > 0) process.stderr.write(`already managed by Citus: ${plan.alreadyDone.join(', ')}\n`);
    for (const statement of plan.statements) {
      process.stdout.write(`${statement}\n`);
      if (!dryRun) await client.query(statement);
    }
    const verb = dryRun ? 'would run' : 'ran';
    process.stderr.write(
      `${verb} ${plan.statements.length} statements${plan.citus ? '' : ' (citus is not installed)'}\n`,
    );
  } finally {
    await client.end();
  }
}
