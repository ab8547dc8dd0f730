import { Worker } from 'node:worker_threads';
import { fromWireError, type WireOutcome, type WireWrite } from './group-commit.js';
import type { WriteArgs, WriteName, WriteResult } from './write-commands.js';
import type { ToWriter, WriterThreadOptions } from './writer-worker.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type FromWriter = { type: 'outcomes'; outcomes: WireOutcome[] } | { type: 'closed' };

/**
 * The single writer with group commit, in its own thread (writer-worker.ts) so SQLite's work
 * overlaps with request handling. Writes are named commands with plain arguments
 * (write-commands.ts); those queued during one turn of the event loop cross in one message,
 * and the thread commits what has arrived in one transaction, each write in its own savepoint.
 * Every promise settles only after its transaction has committed.
 */
export class SqliteWriter {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #queue: WireWrite[] = [];
  #scheduled = false;
  #idle: Array<() => void> = [];
  #failed: Error | null = null;
  #closed: Promise<void> | null = null;

  constructor(options: WriterThreadOptions) {
    this.#worker = startWorker(options);
    // an idle writer does not keep the process alive; a pending write does (see #track)
    this.#worker.unref();
    this.#worker.on('message', (message: FromWriter) => {
      if (message.type === 'outcomes') this.#settle(message.outcomes);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => this.#fail(new Error(`SQLite writer thread exited (code ${code})`)));
  }

  /** Queues the named write for the next group transaction; resolves with its result after commit. */
  submit<K extends WriteName>(name: K, ...args: WriteArgs<K> extends undefined ? [] : [WriteArgs<K>]): Promise<WriteResult<K>> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#closed) return Promise.reject(new Error('The SQLite writer is closed'));
    const id = this.#nextId++;
    return new Promise<WriteResult<K>>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#queue.push([id, name, args[0]]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#post());
      }
    });
  }

  /** Resolves when everything queued so far is committed. */
  async drain(): Promise<void> {
    if (this.#pending.size === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  /** Drains, then closes the writer connection and ends the thread. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    await this.drain();
    if (this.#failed) return;
    this.#worker.ref();
    await new Promise<void>((resolve) => {
      this.#worker.on('message', (message: FromWriter) => {
        if (message.type === 'closed') resolve();
      });
      this.#worker.once('exit', () => resolve());
      this.#worker.postMessage({ type: 'close' } satisfies ToWriter);
    });
    await this.#worker.terminate();
  }

  #post(): void {
    this.#scheduled = false;
    const writes = this.#queue;
    this.#queue = [];
    if (writes.length > 0) this.#worker.postMessage({ type: 'writes', writes } satisfies ToWriter);
  }

  #settle(outcomes: WireOutcome[]): void {
    for (const outcome of outcomes) {
      const pending = this.#pending.get(outcome[0]);
      if (!pending) continue;
      this.#pending.delete(outcome[0]);
      if (outcome[1]) pending.resolve(outcome[2]);
      else pending.reject(fromWireError(outcome[2]));
    }
    this.#notifyIdle();
  }

  /** The thread failed or ended: every write still pending fails, and so do later ones. */
  #fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = this.#closed ? new Error('The SQLite writer is closed') : error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#queue = [];
    this.#notifyIdle();
  }

  #notifyIdle(): void {
    if (this.#pending.size > 0) return;
    this.#worker.unref();
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * Under tsx (the sources run as TypeScript) a worker does not inherit the loader, so the
 * thread registers it before importing its TypeScript entry; compiled JavaScript loads directly.
 */
function startWorker(options: WriterThreadOptions): Worker {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const entry = new URL(`./writer-worker${ext}`, import.meta.url);
  if (ext === '.js') return new Worker(entry, { workerData: options });
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(code, { eval: true, workerData: options });
}
