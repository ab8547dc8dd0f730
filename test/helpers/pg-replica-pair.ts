import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ensurePostgres } from './postgres-server.js';

/**
 * A PostgreSQL primary and a streaming replica of it, both private to one test: two clusters made
 * with Debian's PostgreSQL binaries in a temp directory, on free loopback ports, the replica made by
 * `pg_basebackup -R`. Trust authentication on loopback only. `stopReplica` and `startReplica` let a
 * test take the replica away and bring it back; `dispose` stops both by their data directories.
 */
export interface ReplicaPair {
  /** The `heddle` database on the primary. */
  primaryUrl: string;
  /** The same database on the (first) replica. */
  replicaUrl: string;
  /** The same database on every replica (`replicas` of them, 1 by default). */
  replicaUrls: string[];
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  dispose(): Promise<void>;
}

const execFileP = promisify(execFile);

async function binDir(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error(`no PostgreSQL binaries under ${root}`);
  return path.join(root, newest, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary as the `postgres` user when we are root (initdb refuses root). */
async function asPostgres(bin: string, args: string[]): Promise<string> {
  const isRoot = process.getuid?.() === 0;
  const [command, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const { stdout } = await execFileP(command, argv, { timeout: 120_000 });
  return stdout;
}

/**
 * `applyDelayMs`: the replica applies each commit this long after the primary made it
 * (`recovery_min_apply_delay`), so that a read sent to it too early would miss the write.
 */
export async function startReplicaPair(opts: { applyDelayMs?: number; replicas?: number } = {}): Promise<ReplicaPair> {
  // installs Debian's postgresql package when needed (CI), like every PostgreSQL test
  await ensurePostgres();
  const bin = await binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-replica-'));
  if (process.getuid?.() === 0) await execFileP('chown', ['postgres', dir]);
  const primaryDir = path.join(dir, 'primary');
  const replicaDirs = Array.from({ length: opts.replicas ?? 1 }, (_, i) => path.join(dir, `replica${i}`));
  const primaryPort = await freePort();
  const replicaPorts: number[] = [];
  for (const _ of replicaDirs) replicaPorts.push(await freePort());
  const options = (port: number): string =>
    `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c wal_level=replica -c max_wal_senders=4`;
  const start = (data: string, port: number, extra = ''): Promise<string> =>
    asPostgres(path.join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-o',
      `${options(port)}${extra}`,
      '-l',
      `${data}.log`,
      '-w',
      'start',
    ]);
  const replicaExtra = ` -c recovery_min_apply_delay=${opts.applyDelayMs ?? 0}ms`;
  const stop = (data: string): Promise<string> =>
    asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => '');

  await asPostgres(path.join(bin, 'initdb'), ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  await start(primaryDir, primaryPort);
  const url = (port: number, db: string): string => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const admin = new pg.Client({ connectionString: url(primaryPort, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE heddle TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  await admin.end();
  for (const replicaDir of replicaDirs) {
    await asPostgres(path.join(bin, 'pg_basebackup'), [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      // a fast checkpoint: the default spread one paces a near-empty primary's checkpoint over a minute or more
      ...['-D', replicaDir, '-R', '-X', 'stream', '--checkpoint=fast'],
    ]);
  }
  for (const [i, replicaDir] of replicaDirs.entries()) await start(replicaDir, replicaPorts[i]!, replicaExtra);
  return {
    primaryUrl: url(primaryPort, 'heddle'),
    replicaUrl: url(replicaPorts[0]!, 'heddle'),
    replicaUrls: replicaPorts.map((port) => url(port, 'heddle')),
    stopReplica: async () => {
      await stop(replicaDirs[0]!);
    },
    startReplica: async () => {
      await start(replicaDirs[0]!, replicaPorts[0]!, replicaExtra);
    },
    dispose: async () => {
      for (const replicaDir of replicaDirs) await stop(replicaDir);
      await stop(primaryDir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
