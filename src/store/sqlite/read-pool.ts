import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../errors/app-error.js';

/**
 * Read connections. A streaming query keeps its connection busy until the stream ends, so each
 * stream takes one from the pool; short reads share the first. WAL lets them all read while the
 * writer commits.
 *
 * All of them are opened up front and stay open: a connection opened on demand needs new file
 * descriptors just when the process may have none left (a flood of client sockets answered 500,
 * SQLITE_CANTOPEN, in issue 17).
 */
export class ReadPool {
  #idle: Database.Database[] = [];
  #all: Database.Database[] = [];
  #waiters: Array<{ resolve: (db: Database.Database) => void; reject: (error: Error) => void }> = [];
  #closed = false;

  constructor(open: () => Database.Database, max: number) {
    for (let i = 0; i < max; i += 1) {
      const db = open();
      // a first read opens the -wal and -shm files now rather than during a request
      db.pragma('schema_version');
      this.#all.push(db);
      this.#idle.push(db);
    }
  }

  /** A free connection; waits for one while all are busy. After closeAll, fails instead of waiting forever. */
  async acquire(): Promise<Database.Database> {
    if (this.#closed) throw closedError();
    const idle = this.#idle.pop();
    if (idle) return idle;
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Callers waiting for a connection. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Runs a synchronous read on a pooled connection. */
  async use<T>(work: (db: Database.Database) => T): Promise<T> {
    const db = await this.acquire();
    try {
      return work(db);
    } finally {
      this.release(db);
    }
  }

  release(db: Database.Database): void {
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(db);
    else this.#idle.push(db);
  }

  closeAll(): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(closedError());
    for (const db of this.#all) db.close();
    this.#all = [];
    this.#idle = [];
  }
}

const closedError = (): Error => new StoreUnavailableError('The store is closed');
