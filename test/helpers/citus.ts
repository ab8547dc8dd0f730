import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A real Citus cluster for tests (docs/scaling.md): Citus is in no package registry, so
 * `../shared/citus` beside the checkout holds its source release and two scripts (build.sh builds
 * and installs it into Debian's PostgreSQL 15; cluster.sh starts a coordinator and workers on
 * loopback). `startCitusCluster` builds it when needed and starts a coordinator and two workers on
 * free ports; `HEDDLE_TEST_CITUS_URL` (set by scripts/test.sh for its Citus pass) names a running
 * coordinator instead, and test/helpers/postgres.ts then makes every test database a distributed one.
 */

const execFileP = promisify(execFile);
/** The scripts of ../shared/citus, beside the repository root. */
export const CITUS_DIR = path.resolve(import.meta.dirname, '../../../shared/citus');

/** The coordinator of the cluster every test database of this process lives on, when one is configured. */
export const citusUrl = (): string | undefined => process.env.HEDDLE_TEST_CITUS_URL || undefined;

export interface CitusCluster {
  /** The coordinator's database `heddle` (user postgres, trust on 127.0.0.1). */
  url: string;
  /** Stops every node (by its data directory) and removes them. */
  stop(): Promise<void>;
}

/** Whether a TCP port on 127.0.0.1 is free now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive free ports. */
async function freePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let free = true;
    for (let i = 0; i < count && free; i += 1) free = await portFree(base + i);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports on 127.0.0.1`);
}

/** Builds Citus when it is not installed yet (build.sh is idempotent; it needs root for apt-get). */
export async function buildCitus(): Promise<void> {
  if (!fs.existsSync(path.join(CITUS_DIR, 'build.sh')))
    throw new Error(`${CITUS_DIR}/build.sh is missing: the Citus tests need ../shared/citus beside the checkout`);
  await execFileP(path.join(CITUS_DIR, 'build.sh'), [], { timeout: 1_200_000, maxBuffer: 16 * 1024 * 1024 });
}

/** A coordinator and `workers` workers on free loopback ports; stop() when done (also at process exit). */
export async function startCitusCluster(workers = 2): Promise<CitusCluster> {
  await buildCitus();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-citus-'));
  const script = path.join(CITUS_DIR, 'cluster.sh');
  const port = await freePorts(workers + 1);
  let stopped = false;
  const stopSync = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      // at exit only synchronous work runs
      execFileSync(script, ['stop', dir], { timeout: 60_000, stdio: 'ignore' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stopSync);
  try {
    const { stdout } = await execFileP(script, ['start', dir, String(port), String(workers)], { timeout: 300_000 });
    const url = stdout.trim().split('\n').at(-1)!;
    return {
      url,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        process.off('exit', stopSync);
        await execFileP(script, ['stop', dir], { timeout: 120_000 }).catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    stopSync();
    throw error;
  }
}

/** The workers of the coordinator at `url` (host, port), from its node table. */
export async function workersOf(url: string): Promise<Array<{ host: string; port: number }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nodename: string; nodeport: number }>(
      `SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0 ORDER BY nodeport`,
    );
    return rows.map((r) => ({ host: r.nodename, port: r.nodeport }));
  } finally {
    await client.end();
  }
}

/** `url` with another database (and the same user, host and port). */
export function withDatabase(url: string, database: string, port?: number): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (port !== undefined) u.port = String(port);
  return u.toString();
}

async function onNode(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Creates database `name` on the coordinator at `coordinatorUrl` and on each of its workers, with
 * the citus extension on each and the workers added, as cluster.sh does for `heddle` (with
 * `citusLater`, the coordinator's database without the extension, for addCitus to add). Shards per
 * distributed table: 4 (Citus's default of 32 makes each of Heddle's 40-odd tables 32 tables on
 * the workers, and a test database takes a minute to distribute).
 */
export async function createCitusDatabase(
  coordinatorUrl: string,
  name: string,
  opts: { citusLater?: boolean } = {},
): Promise<void> {
  const workers = await workersOf(coordinatorUrl);
  for (const w of workers) {
    await onNode(withDatabase(coordinatorUrl, 'postgres', w.port), [
      `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
    ]);
    await onNode(withDatabase(coordinatorUrl, name, w.port), ['CREATE EXTENSION citus']);
  }
  await onNode(withDatabase(coordinatorUrl, 'postgres'), [
    `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
    `ALTER DATABASE ${name} SET citus.shard_count = 4`,
  ]);
  if (opts.citusLater !== true) await addCitus(coordinatorUrl, name);
}

/**
 * Creates the citus extension in database `name` of the coordinator and adds the workers: what an
 * operator does to a database that held Heddle's schema and data before (createCitusDatabase with
 * `citusLater`).
 */
export async function addCitus(coordinatorUrl: string, name: string): Promise<void> {
  const workers = await workersOf(coordinatorUrl);
  const coordinator = new URL(coordinatorUrl);
  await onNode(withDatabase(coordinatorUrl, name), [
    'CREATE EXTENSION citus',
    `SELECT citus_set_coordinator_host('${coordinator.hostname}', ${Number(coordinator.port)})`,
    ...workers.map((w) => `SELECT citus_add_node('${w.host}', ${w.port})`),
  ]);
}

/**
 * Creates database `name` on the coordinator and each worker as a copy of `template` on that node
 * (CREATE DATABASE … TEMPLATE): a distributed database with everything the template holds, its
 * shards included (each node's copy holds that node's shards and Citus's metadata, which name the
 * nodes, not the database). The template takes no connections (cloneable at any time).
 */
export async function cloneCitusDatabase(coordinatorUrl: string, template: string, name: string): Promise<void> {
  const workers = await workersOf(coordinatorUrl);
  for (const port of [Number(new URL(coordinatorUrl).port), ...workers.map((w) => w.port)])
    await onNode(withDatabase(coordinatorUrl, 'postgres', port), [`CREATE DATABASE ${name} TEMPLATE ${template}`]);
}

/** Makes `name` a template on every node: no connections from now on (the Citus maintenance daemon's ended). */
export async function sealCitusTemplate(coordinatorUrl: string, name: string): Promise<void> {
  const workers = await workersOf(coordinatorUrl);
  for (const port of [Number(new URL(coordinatorUrl).port), ...workers.map((w) => w.port)])
    await onNode(withDatabase(coordinatorUrl, 'postgres', port), [
      `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    ]);
}

/** Whether database `name` exists and is a sealed template on the coordinator. */
export async function isCitusTemplate(coordinatorUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: withDatabase(coordinatorUrl, 'postgres') });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate', [name]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

/** Drops database `name` on the coordinator and its workers. */
export async function dropCitusDatabase(coordinatorUrl: string, name: string): Promise<void> {
  const workers = await workersOf(coordinatorUrl);
  await onNode(withDatabase(coordinatorUrl, 'postgres'), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
  for (const w of workers)
    await onNode(withDatabase(coordinatorUrl, 'postgres', w.port), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
}
