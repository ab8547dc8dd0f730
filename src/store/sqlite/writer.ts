import type Database from 'better-sqlite3';

interface PendingWrite {
  apply: (db: Database.Database) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The single writer with group commit: writes queued during one turn of the event loop are
 * applied in one transaction, each inside its own savepoint so one failing write does not undo
 * the others. Every promise settles only after the transaction has committed.
 */
export class SqliteWriter {
  #queue: PendingWrite[] = [];
  #scheduled = false;
  #idle: Array<() => void> = [];

  constructor(private readonly db: Database.Database) {}

  /** Queues `apply` to run inside the next group transaction; resolves with its result after commit. */
  submit<T>(apply: (db: Database.Database) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ apply, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Resolves when everything queued so far is committed. */
  async drain(): Promise<void> {
    if (this.#queue.length === 0 && !this.#scheduled) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(write.apply)(this.db) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const write of batch) write.reject(error);
      this.#notifyIdle();
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
    this.#notifyIdle();
  }

  #notifyIdle(): void {
    if (this.#queue.length > 0 || this.#scheduled) return;
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }
}
