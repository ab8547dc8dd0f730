import type Database from 'better-sqlite3';

/**
 * Read connections. A streaming query keeps its connection busy until the stream ends, so each
 * stream takes one from the pool; short reads share the first. WAL lets them all read while the
 * writer commits.
 */
export class ReadPool {
  #idle: Database.Database[] = [];
  #all: Database.Database[] = [];
  #waiters: Array<(db: Database.Database) => void> = [];

  constructor(
    private readonly open: () => Database.Database,
    private readonly max: number,
  ) {}

  async acquire(): Promise<Database.Database> {
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#all.length < this.max) {
      const db = this.open();
      this.#all.push(db);
      return db;
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
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
    const waiter = this.#waiters.shift();
    if (waiter) waiter(db);
    else this.#idle.push(db);
  }

  closeAll(): void {
    for (const db of this.#all) db.close();
    this.#all = [];
    this.#idle = [];
  }
}
