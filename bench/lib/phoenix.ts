import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../../test/helpers/file-lock.js';
import { freePort, REPO_ROOT, spawnTracked, waitUntil, watch, type ChildServer } from './processes.js';

/**
 * Arize Phoenix, the comparison receiver of the OTel benchmark: the pinned PyPI package in a
 * virtualenv under .cache/ (built once, reused), started on loopback with its default SQLite
 * storage in a temp working dir, all other settings at their defaults.
 */

export const PHOENIX_VERSION = '20.26.1';
const VENV_DIR = path.join(REPO_ROOT, '.cache', 'venv-phoenix');
const VENV_PYTHON = path.join(VENV_DIR, 'bin', 'python');
const execFileP = promisify(execFile);

async function run(file: string, args: string[], timeoutMs: number): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await execFileP(file, args, {
      cwd: REPO_ROOT,
      timeout: timeoutMs,
      maxBuffer: 32 * 1024 * 1024,
    });
    return { ok: true, out: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000) };
  }
}

async function installedVersion(): Promise<string | null> {
  if (!fs.existsSync(VENV_PYTHON)) return null;
  const res = await run(
    VENV_PYTHON,
    ['-c', 'import importlib.metadata as m; print(m.version("arize-phoenix"))'],
    60_000,
  );
  return res.ok ? res.out.trim() : null;
}

/** The venv's `phoenix` launcher, after making sure arize-phoenix==PHOENIX_VERSION is installed. */
export async function ensurePhoenix(log: (m: string) => void): Promise<string> {
  const launcher = path.join(VENV_DIR, 'bin', 'phoenix');
  if ((await installedVersion()) === PHOENIX_VERSION) return launcher;
  return withFileLock('heddle-bench-venv-phoenix', async () => {
    if ((await installedVersion()) === PHOENIX_VERSION) return launcher;
    if (!fs.existsSync(VENV_PYTHON)) {
      log(`creating ${path.relative(REPO_ROOT, VENV_DIR)}`);
      const made = await run('python3', ['-m', 'venv', VENV_DIR], 300_000);
      if (!made.ok) throw new Error(`python3 -m venv failed:\n${made.out}`);
    }
    log(`pip install arize-phoenix==${PHOENIX_VERSION} (once; a few minutes)`);
    const pip = await run(
      VENV_PYTHON,
      ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', `arize-phoenix==${PHOENIX_VERSION}`],
      1_800_000,
    );
    if (!pip.ok) throw new Error(`pip install arize-phoenix==${PHOENIX_VERSION} failed:\n${pip.out}`);
    const version = await installedVersion();
    if (version !== PHOENIX_VERSION)
      throw new Error(`arize-phoenix ${version} importable after install, expected ${PHOENIX_VERSION}`);
    return launcher;
  });
}

export interface PhoenixServer extends ChildServer {
  /** Its SQLite database (the default storage: `<PHOENIX_WORKING_DIR>/phoenix.db`). */
  dbFile: string;
}

/**
 * `phoenix serve` with PHOENIX_WORKING_DIR = `workDir`, HTTP on 127.0.0.1 and a free port, gRPC
 * on another free port (it cannot be switched off; Phoenix binds it on every interface), no
 * telemetry pixels; resolves once `/readyz` (database reachable) answers.
 */
export async function startPhoenix(launcher: string, workDir: string): Promise<PhoenixServer> {
  const port = await freePort();
  const grpcPort = await freePort();
  const env = {
    ...process.env,
    PHOENIX_WORKING_DIR: workDir,
    PHOENIX_HOST: '127.0.0.1',
    PHOENIX_PORT: String(port),
    PHOENIX_GRPC_PORT: String(grpcPort),
    PHOENIX_TELEMETRY_ENABLED: 'false',
    PHOENIX_ALLOW_EXTERNAL_RESOURCES: 'false',
  };
  const { child, tail } = spawnTracked(['serve'], env, launcher, workDir);
  const url = `http://127.0.0.1:${port}`;
  const server = watch('phoenix', child, url, tail);
  try {
    // start-up (imports, migrations) takes 10–50 s on the shared 2-core machine
    await waitUntil(async () => (await fetch(`${url}/readyz`)).ok, child, tail, 'Phoenix', 240_000);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, dbFile: path.join(workDir, 'phoenix.db') };
}

/**
 * Rows in Phoenix's `spans` table (all projects), read from its SQLite file through a separate
 * read-only connection: committed rows are what Phoenix's API can return.
 */
export function phoenixStoredSpans(dbFile: string): { count: () => number; close: () => void } {
  let db: Database.Database | null = null;
  return {
    count: () => {
      db ??= new Database(dbFile, { readonly: true, fileMustExist: true, timeout: 10_000 });
      return (db.prepare('SELECT count(*) AS n FROM spans').get() as { n: number }).n;
    },
    close: () => db?.close(),
  };
}

/** The project's span count as Phoenix's GraphQL API reports it (`Project.recordCount`). */
export async function phoenixRecordCount(url: string, project: string): Promise<number> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ projects { edges { node { name recordCount } } } }' }),
  });
  if (!res.ok) throw new Error(`Phoenix GraphQL answered ${res.status}: ${await res.text()}`);
  const data = (await res.json()) as {
    data?: { projects: { edges: Array<{ node: { name: string; recordCount: number } }> } };
    errors?: unknown;
  };
  if (!data.data) throw new Error(`Phoenix GraphQL errors: ${JSON.stringify(data.errors)}`);
  return data.data.projects.edges.find((e) => e.node.name === project)?.node.recordCount ?? 0;
}
