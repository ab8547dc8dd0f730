import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { redactUrl } from './store-label.js';

/**
 * A start-up failure the operator can fix: one line naming the cause and the setting to change.
 * main.ts prints it without a stack and exits with 2, before anything (the first admin key, the
 * data directory, the SQLite file) has been created.
 */
export class StartupError extends Error {}

/** The error's `code`, looking through wrappers (`StoreUnavailableError.cause`, AggregateError). */
function errorCode(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined; e;) {
    if (typeof e.code === 'string') return e.code;
    e = (e.cause ?? e.errors?.[0]) as typeof e;
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let e = error as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  const [first = ''] = (e?.message ?? String(error)).split('\n');
  return first;
}

/**
 * Checks the data directory without creating anything: it is a writable directory, or it is
 * missing and its parent is a directory (a first start creates it there). A missing parent is
 * refused rather than created, so a mistyped path does not grow a tree of directories.
 */
export function checkDataDir(dir: string): void {
  const setting = `HEDDLE_DATA_DIR=${dir}`;
  const stat = statOfDataDir(dir, dir);
  if (stat === undefined) {
    const parent = path.dirname(dir);
    if (!statOfDataDir(parent, dir)?.isDirectory())
      throw new StartupError(
        `Data directory ${dir} is missing and so is its parent ${parent}: create it, or set HEDDLE_DATA_DIR to an existing directory`,
      );
    probeWritable(parent, `Data directory ${dir} is missing and cannot be created in ${parent}`);
    return;
  }
  if (!stat.isDirectory())
    throw new StartupError(`${setting} is not a directory: set HEDDLE_DATA_DIR to a directory (or remove the file)`);
  probeWritable(dir, `Data directory ${dir} is not writable`);
}

/**
 * `fs.statSync` of `file` (the data directory or its parent), undefined when it does not exist; any
 * other failure (a regular file where the path needs a directory: ENOTDIR; no permission to look)
 * is a start-up error naming the data directory.
 */
function statOfDataDir(file: string, dir: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    const code = errorCode(error) ?? 'error';
    const why = code === 'ENOTDIR' ? 'a part of its path is a file, not a directory' : `it cannot be read (${code})`;
    throw new StartupError(`Data directory ${dir} cannot be used: ${why}; set HEDDLE_DATA_DIR to a directory`);
  }
}

/** Writes and removes a file: access() says yes to root even on a read-only mount. */
function probeWritable(dir: string, what: string): void {
  const probe = path.join(dir, `.heddle-write-test-${process.pid}`);
  try {
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
  } catch (error) {
    throw new StartupError(`${what} (${errorCode(error) ?? 'error'}): fix its permissions or set HEDDLE_DATA_DIR`);
  }
}

/** The one-line reason a listen failed, or null when it is not about the address. */
export function listenFailure(
  error: unknown,
  host: string,
  port: number,
  variable = 'HEDDLE_PORT',
): StartupError | null {
  const code = errorCode(error);
  if (code === 'EADDRINUSE')
    return new StartupError(
      `Port ${port} on ${host} is already in use: stop the other process or set ${variable} to a free port`,
    );
  if (code === 'EACCES')
    return new StartupError(`Not allowed to listen on port ${port}: set ${variable} to a port above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new StartupError(
      `Cannot listen on HEDDLE_HOST=${host} (${code}): set HEDDLE_HOST to an address of this machine`,
    );
  return null;
}

/**
 * Binds the port and lets it go, so a port in use is reported before the store is opened (which
 * creates the SQLite file) or an admin key is made. Port 0 (any free port) needs no probe.
 */
export async function probePort(host: string, port: number, variable = 'HEDDLE_PORT'): Promise<void> {
  if (port === 0) return;
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenFailure(error, host, port, variable) ?? error));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** PostgreSQL error codes and socket codes that mean "cannot use this database" rather than a bug. */
const PG_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (is PostgreSQL running there?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ECONNRESET: 'the server closed the connection',
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
  '57P03': 'the server is not accepting connections yet',
  '53300': 'the server has too many connections',
  '42501': 'the user may not create the schema',
  // a file of the server's own installation is missing or does not match it, e.g. a library a
  // package upgrade replaced under the running server: restarting the server loads the new one
  '58P01': 'the server cannot load one of its own files (was PostgreSQL upgraded under it? restart it)',
  '58000': 'the server reported a system error',
};

/** The one-line reason the store could not be opened, or null for errors that are not about the setting. */
export function storeFailure(error: unknown, config: Pick<Config, 'databaseUrl' | 'dataDir'>): StartupError | null {
  const code = errorCode(error);
  if (config.databaseUrl) {
    const reason = code !== undefined ? PG_REASONS[code] : undefined;
    const invalidUrl = error instanceof TypeError && /Invalid URL/i.test(innermostMessage(error));
    if (reason === undefined && !invalidUrl && !/password|SASL|SCRAM/i.test(innermostMessage(error))) return null;
    return new StartupError(
      `Cannot use PostgreSQL at ${redactUrl(config.databaseUrl)}: ${reason ?? innermostMessage(error)}; check HEDDLE_DATABASE_URL`,
    );
  }
  if (code?.startsWith('SQLITE_') || code === 'EACCES' || code === 'EROFS')
    return new StartupError(
      `Cannot open the SQLite database in ${config.dataDir} (${code}: ${innermostMessage(error)}): fix the file or set HEDDLE_DATA_DIR`,
    );
  return null;
}

/**
 * Failures of a PostgreSQL server that is not up yet rather than misconfigured: nothing listens,
 * its host name is not registered yet (a compose service, a Kubernetes Service without endpoints),
 * or it is still starting. `serve` retries these for HEDDLE_DATABASE_WAIT_SECONDS; a wrong
 * password or a missing database fails at once.
 */
const NOT_UP_YET: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  '57P03',
]);

export function storeNotUpYet(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NOT_UP_YET.has(code);
}
