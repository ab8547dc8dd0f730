import type pg from 'pg';
import type { CallPart } from '../types.js';
import { mergeParts, UPSERT_RETURNING_SQL, upsertPayload, type MergedCall } from './call-merge.js';
import { OverloadedError } from '../../errors/app-error.js';
import { diskStateOf, isRetryable, mapPgError } from './pg-support.js';
import { isCallsExist, newCallsParams, newCallsSql, rolledUpUpsert } from './rollup-writes.js';
import { pendingForm } from './rollup-pending.js';
import { inTransaction } from './transaction.js';

interface Pending {
  parts: CallPart[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface CallWriterOptions {
  /** Transactions in flight at once (each on its own connection). */
  concurrency?: number;
  /** Most parts folded into one statement. */
  maxBatchParts?: number;
  /** Writes queued or in flight at once; more fail with 503 at once (docs/reliability-backpressure.md). */
  maxPending?: number;
  /** Told how many roll-up change rows each committed batch appended (rollup-pending.ts RollupFolder). */
  onRollupAppended?: (rows: number) => void;
}

/**
 * Group commit for call writes. Writes that arrive while earlier batches are in flight wait and
 * are then folded into one multi-row upsert, so under load one commit acknowledges many requests.
 * Each `submit` resolves only after the transaction holding its parts has committed. When a batch
 * fails, its writes are retried one by one, so a bad write fails alone.
 */
export class CallWriter {
  readonly #pool: pg.Pool;
  readonly #concurrency: number;
  readonly #maxBatchParts: number;
  #queue: Pending[] = [];
  #inFlight = 0;
  /** Writes taken into batches that have not settled yet. */
  #inFlightWrites = 0;
  readonly #maxPending: number;
  readonly #onRollupAppended: (rows: number) => void;
  #idle: Array<() => void> = [];

  constructor(pool: pg.Pool, options: CallWriterOptions = {}) {
    this.#pool = pool;
    this.#concurrency = options.concurrency ?? 2;
    this.#maxBatchParts = options.maxBatchParts ?? 2000;
    this.#maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
    this.#onRollupAppended = options.onRollupAppended ?? (() => undefined);
  }

  /** Writes queued or in flight. */
  get pending(): number {
    return this.#queue.length + this.#inFlightWrites;
  }

  submit(parts: CallPart[]): Promise<void> {
    if (parts.length === 0) return Promise.resolve();
    if (this.pending >= this.#maxPending) {
      return Promise.reject(
        new OverloadedError(
          `Server busy: ${this.pending} call writes are waiting for the database (limit ${this.#maxPending}); retry later`,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ parts, resolve, reject });
      this.#pump();
    });
  }

  /** Resolves when everything submitted so far has settled. */
  async drain(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (this.#inFlight < this.#concurrency && this.#queue.length > 0) {
      const batch = this.#take();
      this.#inFlight += 1;
      this.#inFlightWrites += batch.length;
      void this.#flush(batch).finally(() => {
        this.#inFlight -= 1;
        this.#inFlightWrites -= batch.length;
        this.#pump();
        if (this.#inFlight === 0 && this.#queue.length === 0) this.#notifyIdle();
      });
    }
  }

  #take(): Pending[] {
    let count = 0;
    let taken = 0;
    while (
      taken < this.#queue.length &&
      (taken === 0 || count + this.#queue[taken]!.parts.length <= this.#maxBatchParts)
    ) {
      count += this.#queue[taken]!.parts.length;
      taken += 1;
    }
    return this.#queue.splice(0, taken);
  }

  async #flush(batch: Pending[]): Promise<void> {
    try {
      await this.#commit(batch.flatMap((p) => p.parts));
      for (const write of batch) write.resolve();
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(mapPgError(error));
        return;
      }
    }
    for (const write of batch) {
      try {
        await this.#commit(write.parts);
        write.resolve();
      } catch (error) {
        write.reject(mapPgError(error));
      }
    }
  }

  /**
   * One transaction (retried after a deadlock, transaction.ts): the calls are locked and their
   * roll-up columns read and the batch upserted in one statement, then the roll-up's change by the
   * difference appended in a second (rollup-writes.ts), so the roll-up commits with the calls.
   */
  async #commit(parts: CallPart[]): Promise<void> {
    const rows = mergeParts(parts);
    // a batch whose every call carries a start is most likely new: one statement, no transaction
    if (rows.every((row) => row.start !== null) && (await this.#writeNew(rows))) return;
    this.#onRollupAppended(await inTransaction(this.#pool, (client) => writeRolledUp(client, rows)));
  }

  /**
   * Writes a batch of new calls and their roll-up in one statement (rollup-writes.ts newCallsSql),
   * retried after a deadlock; false, with nothing written, when a call of the batch was stored
   * already (the statement fails as a whole), so the caller writes it in a transaction.
   */
  async #writeNew(rows: MergedCall[]): Promise<boolean> {
    const write = upsertQuery(rows);
    const params = newCallsParams(rows);
    const query = {
      name: `${write.name}_new${pendingForm(params.pending)}`,
      text: newCallsSql(write.text, write.values.length, params.pending),
      values: [...write.values, ...params.values],
    };
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.#pool.query(query);
        diskStateOf(this.#pool).noteCommit();
        this.#onRollupAppended(params.pending);
        return true;
      } catch (error) {
        if (isCallsExist(error)) return false;
        diskStateOf(this.#pool).noteFailure(error);
        if (attempt >= 2 || !isRetryable(error)) throw error;
      }
    }
  }

  #notifyIdle(): void {
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * The batch's upsert with the call roll-up kept in step, on a client inside a transaction, one
 * statement per project (each locking read on one shard under Citus), projects in key order (the
 * batch's, call-merge.ts); the roll-up rows appended.
 */
async function writeRolledUp(client: pg.PoolClient, rows: MergedCall[]): Promise<number> {
  let appended = 0;
  for (let from = 0; from < rows.length;) {
    const project = rows[from]!.project_id;
    let to = from + 1;
    while (to < rows.length && rows[to]!.project_id === project) to += 1;
    const group = rows.slice(from, to);
    appended += await rolledUpUpsert(client, project, group, upsertQuery(group));
    from = to;
  }
  return appended;
}

/** The batch's statement (call-merge.ts); `call_values` is the call indexer's (call-indexes/text-index.ts). */
function upsertQuery(rows: readonly MergedCall[]): { name: string; text: string; values: unknown[] } {
  return { name: 'heddle_calls_upsert', text: UPSERT_RETURNING_SQL, values: [upsertPayload(rows)] };
}
