/**
 * Disk-full handling shared by both adapters (docs/reliability-backpressure.md): which driver
 * errors mean "the disk holding the database is full", and whether the store's last write failed
 * for that reason, which `/health` reports as degraded until a write commits again.
 */

/** The cause named in the 507 answer and in `/health`, or null when the error is not a full disk. */
export function diskFullCause(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  // SQLite reports ENOSPC on its database, WAL or journal files as SQLITE_FULL
  if (code === 'SQLITE_FULL') return 'SQLITE_FULL';
  if (code === 'ENOSPC') return 'ENOSPC';
  if (code === '53100') return 'PostgreSQL 53100 disk_full';
  return null;
}

export class DiskState {
  #reason: string | null = null;
  #since: number | null = null;

  /** Why the last write failed for lack of space; null when it did not (or a later write committed). */
  get reason(): string | null {
    return this.#reason;
  }

  /** When the disk was first found full (ms since the epoch); null when it is not. */
  get since(): number | null {
    return this.#since;
  }

  /** A write failed: remembered when the disk was full. Returns the cause, or null. */
  noteFailure(error: unknown): string | null {
    const cause = diskFullCause(error);
    if (cause !== null && this.#reason === null) {
      this.#reason = cause;
      this.#since = Date.now();
    }
    return cause;
  }

  /** A write committed, so the disk takes writes again. */
  noteCommit(): void {
    this.#reason = null;
    this.#since = null;
  }
}
