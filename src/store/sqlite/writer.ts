import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { InsufficientStorageError, OverloadedError } from '../../errors/app-error.js';
import { startWorker } from '../../worker-entry.js';
import { DiskState } from '../sql/disk-state.js';
import type { Tx } from '../sql/core/sql-tx.js';
import { fromWireError, type WireOutcome, type WireWrite } from './group-commit.js';
import type { TxAnswer, TxAsk } from './tx-writes.js';
import type { WriteArgs, WriteName, WriteResult } from './write-commands.js';
import type { ToWriter, WriterThreadOptions } from './writer-worker.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type FromWriter = { type: 'outcomes'; outcomes: WireOutcome[] } | { type: 'closed' };

/** A transaction body that runs on this thread while the writer thread executes its statements. */
interface OpenTx {
  body: () => Tx<unknown>;
  gen?: Tx<unknown>;
  value?: unknown;
  error?: { thrown: unknown };
}

/**
 * The single writer with group commit, in its own thread (writer-worker.ts) so SQLite's work
 * overlaps with request handling. Writes are named commands with plain arguments
 * (write-commands.ts); those queued in one job of this thread cross in one message, and the
 * thread commits everything that has arrived by its next turn in one transaction, each write in
 * its own savepoint.
 * Every promise settles only after its transaction has committed.
 */
export class SqliteWriter {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  /** The ids among `#pending` of call writes (`calls.write`: the ingest). */
  readonly #callWrites = new Set<number>();
  #nextId = 1;
  #queue: WireWrite[] = [];
  #scheduled = false;
  #idle: Array<() => void> = [];
  #failed: Error | null = null;
  #closed: Promise<void> | null = null;
  readonly #txs = new Map<number, OpenTx>();
  readonly #txPort: MessagePort;
  readonly #txSignal = new Int32Array(new SharedArrayBuffer(4));
  readonly #maxPending: number;
  /** Whether the last write failed because the disk is full (`/health`, docs/reliability-backpressure.md). */
  readonly disk = new DiskState();

  /** `maxPending`: writes queued at once; more fail with 503 at once (the queue stays bounded while SQLite stalls). */
  constructor(options: Omit<WriterThreadOptions, 'txPort' | 'txSignal'> & { maxPending?: number }) {
    const { maxPending = Number.POSITIVE_INFINITY, ...threadOptions } = options;
    this.#maxPending = maxPending;
    const channel = new MessageChannel();
    this.#txPort = channel.port1;
    this.#txPort.on('message', (ask: TxAsk) => this.#answer(ask));
    this.#txPort.unref();
    const workerData: WriterThreadOptions = { ...threadOptions, txPort: channel.port2, txSignal: this.#txSignal };
    this.#worker = startWorker(import.meta.url, 'writer-worker', { workerData, transferList: [channel.port2] });
    // an idle writer does not keep the process alive; a pending write does (see #track)
    this.#worker.unref();
    this.#worker.on('message', (message: FromWriter) => {
      if (message.type === 'outcomes') this.#settle(message.outcomes);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => this.#fail(new Error(`SQLite writer thread exited (code ${code})`)));
  }

  /** Queues the named write for the next group transaction; resolves with its result after commit. */
  submit<K extends WriteName>(
    name: K,
    ...args: WriteArgs<K> extends undefined ? [] : [WriteArgs<K>]
  ): Promise<WriteResult<K>> {
    return this.#enqueue(this.#nextId++, name, args[0]) as Promise<WriteResult<K>>;
  }

  /**
   * A read-check-write transaction (store/sql/core/sql-tx.ts) as one write of the group commit:
   * `body` runs here, each statement it yields runs in the writer thread inside the write's
   * savepoint. The writer waits for this thread between statements: for rare writes only.
   */
  transaction<T>(body: () => Tx<T>): Promise<T> {
    if (this.#pending.size >= this.#maxPending) return Promise.reject(this.#overloaded());
    const id = this.#nextId++;
    this.#txs.set(id, { body });
    return this.#enqueue(id, 'tx.run', id) as Promise<T>;
  }

  #enqueue(id: number, name: WriteName, args: unknown): Promise<unknown> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#closed) return Promise.reject(new Error('The SQLite writer is closed'));
    if (this.#pending.size >= this.#maxPending) return Promise.reject(this.#overloaded());
    return new Promise<unknown>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      if (name === 'calls.write') this.#callWrites.add(id);
      this.#queue.push([id, name, args]);
      // posted before this thread moves on to its next I/O event: with setImmediate, all the
      // requests read in one poll phase were parsed before the writer got the first of them,
      // and the two threads took turns instead of overlapping
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#post());
      }
    });
  }

  /** Writes queued or being committed. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Call writes (the ingest) queued or being committed. */
  get pendingCallWrites(): number {
    return this.#callWrites.size;
  }

  #overloaded(): OverloadedError {
    return new OverloadedError(
      `Server busy: ${this.#pending.size} writes are waiting for the database (limit ${this.#maxPending}); retry later`,
    );
  }

  /** The writer thread waits (Atomics.wait) for this answer; it is woken after the answer is posted. */
  #answer(ask: TxAsk): void {
    const tx = this.#txs.get(ask.txId);
    if ('abandon' in ask) {
      tx?.gen?.return(undefined);
      return;
    }
    let answer: TxAnswer;
    try {
      if (!tx) throw new Error(`unknown transaction ${ask.txId}`);
      if ('start' in ask) tx.gen = tx.body();
      const step = 'start' in ask ? tx.gen!.next() : tx.gen!.next(ask.result);
      if (step.done) tx.value = step.value;
      answer = step.done
        ? { txId: ask.txId, seq: ask.seq, done: true }
        : { txId: ask.txId, seq: ask.seq, op: step.value };
    } catch (thrown) {
      if (tx) tx.error = { thrown };
      answer = { txId: ask.txId, seq: ask.seq, failed: true };
    }
    this.#txPort.postMessage(answer);
    Atomics.store(this.#txSignal, 0, 1);
    Atomics.notify(this.#txSignal, 0);
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
    this.#txPort.close();
  }

  #post(): void {
    this.#scheduled = false;
    const writes = this.#queue;
    this.#queue = [];
    if (writes.length > 0) this.#worker.postMessage({ type: 'writes', writes } satisfies ToWriter);
  }

  #settle(outcomes: WireOutcome[]): void {
    if (outcomes.some((outcome) => outcome[1])) this.disk.noteCommit();
    for (const outcome of outcomes) {
      const pending = this.#pending.get(outcome[0]);
      if (!pending) continue;
      this.#pending.delete(outcome[0]);
      this.#callWrites.delete(outcome[0]);
      const tx = this.#txs.get(outcome[0]);
      this.#txs.delete(outcome[0]);
      if (outcome[1]) pending.resolve(tx ? tx.value : outcome[2]);
      // a transaction body's own error keeps its class (it never crossed the thread)
      else pending.reject(tx?.error ? tx.error.thrown : this.#mapError(fromWireError(outcome[2])));
    }
    this.#notifyIdle();
  }

  /**
   * A full disk is a 507 naming the cause and marks the store degraded; a database locked by
   * another process past the busy timeout is a 503 to retry (both retried by the official clients).
   */
  #mapError(error: Error): Error {
    const full = this.disk.noteFailure(error);
    if (full !== null) return new InsufficientStorageError(full);
    const code = (error as { code?: unknown }).code;
    if (
      code === 'SQLITE_BUSY' ||
      code === 'SQLITE_LOCKED' ||
      (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))
    )
      return new OverloadedError('Server busy: the database is locked by another connection; retry later');
    return error;
  }

  /** The thread failed or ended: every write still pending fails, and so do later ones. */
  #fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = this.#closed ? new Error('The SQLite writer is closed') : error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#callWrites.clear();
    this.#txs.clear();
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
