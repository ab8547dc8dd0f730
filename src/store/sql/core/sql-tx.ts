import type { CompiledSql } from '../core/sql-tag.js';
import type { SqlDialect } from './sql-dialect.js';

/**
 * The one transaction abstraction of the SQL stores written once for every adapter (training,
 * annotation queues, feedback, prices). A transaction body is a generator that yields statements
 * and receives their results (`yield* all(q)`), so the same read-check-write logic runs
 * synchronously inside the SQLite writer's group commit (sqlite/sqlite-tx-runner.ts) and
 * asynchronously on a PostgreSQL connection inside BEGIN/COMMIT (postgres/pg-tx-runner.ts).
 */
export type TxOp = { kind: 'all' | 'run'; q: CompiledSql } | { kind: 'runAll'; qs: CompiledSql[] };

export type Tx<T> = Generator<TxOp, T, unknown>;

/** Rows of a query inside a transaction. */
export function* all<R>(q: CompiledSql): Generator<TxOp, R[], unknown> {
  return (yield { kind: 'all', q }) as R[];
}

/** Rows changed by a statement inside a transaction. */
export function* run(q: CompiledSql): Generator<TxOp, number, unknown> {
  return (yield { kind: 'run', q }) as number;
}

/**
 * Rows changed by each statement of a list, in one step: on SQLite the writer thread runs the
 * whole list without waiting for this thread between statements (for writes of many rows).
 */
export function* runAll(qs: CompiledSql[]): Generator<TxOp, number[], unknown> {
  return (yield { kind: 'runAll', qs }) as number[];
}

/** What an adapter provides to the stores written over transactions. */
export interface TxRunner {
  /** Runs `body` atomically: every statement commits together, or none when it throws. */
  transaction<T>(body: () => Tx<T>): Promise<T>;
  /** One read outside any transaction. */
  read<R>(q: CompiledSql): Promise<R[]>;
}

/** Drives a transaction body with a synchronous statement runner (SQLite). */
export function driveSync<T>(body: () => Tx<T>, exec: (op: TxOp) => unknown): T {
  const gen = body();
  let step = gen.next();
  while (!step.done) step = gen.next(exec(step.value));
  return step.value;
}

/** Drives a transaction body with an asynchronous statement runner (PostgreSQL). */
export async function driveAsync<T>(body: () => Tx<T>, exec: (op: TxOp) => Promise<unknown>): Promise<T> {
  const gen = body();
  let step = gen.next();
  while (!step.done) step = gen.next(await exec(step.value));
  return step.value;
}

/** What the transaction bodies need beyond the shared dialect. */
export interface TxDialect {
  d: SqlDialect;
  /** Row lock for read-check-write transactions (PostgreSQL `FOR UPDATE`; SQLite has one writer). */
  forUpdate: string;
  /**
   * Claim clause of a queue's lease: added to a lookup of one job by its full key, it locks the row
   * unless another lease holds it (PostgreSQL `FOR UPDATE SKIP LOCKED`; SQLite has one writer). A
   * lookup by key runs on one shard under Citus, where a locking scan across projects cannot.
   */
  claim: string;
  /** Whether an error is a unique-constraint violation (a concurrent insert won). */
  isUniqueViolation(error: unknown): boolean;
}
