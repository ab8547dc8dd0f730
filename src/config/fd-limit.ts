import fs from 'node:fs';

/**
 * The default connection cap, derived from the process's open-file limit (issue 35). A connection
 * is a file descriptor; so are the SQLite database, its WAL and shared-memory files (per read
 * connection), PostgreSQL pool connections, log files and uploads in flight. The cap keeps a
 * reserve for those: a tenth of the limit, at least 256 (a quarter when the limit is under 1,024).
 * With the usual soft limit of 1,024 that gives the former default, 768; with 20,000, 18,000.
 */

/** What is assumed when the limit cannot be read (no /proc): the usual soft limit. */
export const ASSUMED_FD_LIMIT = 1_024;

/** The soft `RLIMIT_NOFILE` of this process from /proc/self/limits, or null when it cannot be read. */
export function openFileLimit(
  readLimits: () => string = () => fs.readFileSync('/proc/self/limits', 'utf8'),
): number | null {
  let text: string;
  try {
    text = readLimits();
  } catch {
    return null;
  }
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!match) return null;
  // "unlimited" does not occur for files on Linux (the kernel caps it at nr_open); treat it as large
  return match[1] === 'unlimited' ? 1_048_576 : Number(match[1]);
}

/** File descriptors kept back from client connections for the store, logs and uploads. */
export function fdReserve(limit: number): number {
  return Math.max(Math.min(256, Math.floor(limit / 4)), Math.ceil(limit / 10));
}

/** The default `HEDDLE_MAX_CONNECTIONS` for an open-file limit (null: unknown, 1,024 assumed). */
export function connectionCapFor(limit: number | null): number {
  const fds = limit ?? ASSUMED_FD_LIMIT;
  return Math.max(1, fds - fdReserve(fds));
}
