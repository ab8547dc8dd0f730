import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { withFileLock } from './file-lock.js';

/**
 * A PostgreSQL server for tests and benchmarks: `HEDDLE_TEST_POSTGRES_URL` when set (a role that
 * may create databases), else the local Debian cluster. When nothing answers, this installs
 * Debian's `postgresql` package (as root), starts or creates the cluster and creates the
 * `heddle_test` role. With CI=true a missing server is an error, never a skip.
 */

const execFileP = promisify(execFile);
const LOCAL_ROLE = 'heddle_test';
const LOCAL_PASSWORD = 'heddle_test';
/** Names of the databases tests create; the prefix lets leftovers of killed runs be found. */
export const DB_PREFIX = 'heddle_test_';
/** Test databases older than this are left over from killed runs and dropped. */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

export const isCi = (): boolean => process.env.CI === 'true';

let server: Promise<string | null> | undefined;

/** The admin URL of a reachable server, or null when none can be had (only ever null outside CI). */
export function ensurePostgres(): Promise<string | null> {
  server ??= findOrStart().catch((error: unknown) => {
    if (isCi()) throw error;
    process.stderr.write(`PostgreSQL unavailable for tests: ${(error as Error).message}\n`);
    return null;
  });
  return server;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function findOrStart(): Promise<string> {
  const configured = process.env.HEDDLE_TEST_POSTGRES_URL;
  if (configured) {
    if (!(await canConnect(configured))) throw new Error(`HEDDLE_TEST_POSTGRES_URL does not answer: ${configured}`);
    await dropStaleDatabases(configured);
    return configured;
  }
  const local = (port: number): string => `postgres://${LOCAL_ROLE}:${LOCAL_PASSWORD}@127.0.0.1:${port}/postgres`;
  if (await canConnect(local(5432))) {
    await withFileLock('heddle-test-postgres', () => restartIfUpgraded(local(5432)));
    await dropStaleDatabases(local(5432));
    return local(5432);
  }
  // several test processes start at once: one sets the server up, the others wait for it
  const port = await withFileLock('heddle-test-postgres', setUpLocalCluster);
  if (!(await canConnect(local(port))))
    throw new Error(`the local cluster on port ${port} does not accept ${LOCAL_ROLE}`);
  return local(port);
}

async function sh(command: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await execFileP(command, args, {
    timeout: timeoutMs,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return stdout;
}

async function hasCommand(command: string): Promise<boolean> {
  try {
    await sh('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}

/** Installs, creates or starts the Debian cluster and creates the test role; returns its port. */
async function setUpLocalCluster(): Promise<number> {
  if (!(await hasCommand('pg_lsclusters'))) {
    if (process.getuid?.() !== 0) throw new Error('postgresql is not installed and installing it needs root');
    await sh('apt-get', ['update'], 600_000);
    await sh('apt-get', ['install', '-y', 'postgresql'], 900_000);
  }
  let clusters = (await sh('pg_lsclusters', ['--no-header']))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/));
  if (clusters.length === 0) {
    const versions = fs
      .readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length === 0) throw new Error('no PostgreSQL server version under /usr/lib/postgresql');
    await sh('pg_createcluster', [versions[0]!, 'main', '--start']);
    clusters = (await sh('pg_lsclusters', ['--no-header']))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.trim().split(/\s+/));
  }
  // pg_lsclusters: Ver Cluster Port Status Owner Data-directory Log-file
  const [version, name, port, status] = clusters[0] as [string, string, string, string, ...string[]];
  if (status !== 'online') await sh('pg_ctlcluster', [version, name, 'start']);
  const role = `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${LOCAL_ROLE}') THEN
      CREATE ROLE ${LOCAL_ROLE} LOGIN CREATEDB PASSWORD '${LOCAL_PASSWORD}';
    ELSE
      ALTER ROLE ${LOCAL_ROLE} LOGIN CREATEDB PASSWORD '${LOCAL_PASSWORD}';
    END IF;
  END $$;
  GRANT pg_signal_backend TO ${LOCAL_ROLE};`;
  await sh('runuser', ['-u', 'postgres', '--', 'psql', '-p', port, '-v', 'ON_ERROR_STOP=1', '-c', role]);
  return Number(port);
}

/** `15.20` of `postgres (PostgreSQL) 15.20 (Debian …)` or of `15.20 (Debian …)`. */
const releaseOf = (text: string): string => /(\d+\.\d+)/.exec(text)?.[1] ?? '';

/**
 * Restarts the local cluster when its server runs an older release than the one installed. An apt
 * upgrade of `postgresql-15` (`../shared/citus/build.sh` installs the server's dev package, which
 * upgrades it) replaces the libraries under the running server: from then on each new backend fails
 * to load `plpgsql.so` (58P01), and a later run's migrations fail with "Temporary backend error".
 */
async function restartIfUpgraded(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  let running: string;
  try {
    await client.connect();
    running = releaseOf(
      (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
  const major = running.split('.')[0]!;
  const binary = `/usr/lib/postgresql/${major}/bin/postgres`;
  if (!fs.existsSync(binary)) return;
  const installed = releaseOf(await sh(binary, ['--version']));
  if (installed === '' || installed === running) return;
  if (process.getuid?.() !== 0) {
    process.stderr.write(`PostgreSQL ${running} runs but ${installed} is installed: restart the cluster\n`);
    return;
  }
  process.stderr.write(`PostgreSQL ${running} runs but ${installed} is installed: restarting the cluster\n`);
  await sh('pg_ctlcluster', [major, 'main', 'restart']);
}

/** Drops test databases whose creation time (in their name) is long past: left by killed runs. */
async function dropStaleDatabases(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${DB_PREFIX}%`,
    ]);
    for (const { datname } of rows) {
      const created = parseInt(datname.slice(DB_PREFIX.length).split('_')[0]!, 36);
      if (Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS) {
        await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
      }
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
