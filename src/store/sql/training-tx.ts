import type { CompiledSql } from './calls-select.js';

/**
 * Transactions of the training store written once for every adapter. A transaction body is a
 * generator that yields statements and receives their results (`yield* all(q)`), so the same
 * read-check-write logic runs synchronously inside the SQLite writer's group commit and
 * asynchronously on a PostgreSQL connection inside BEGIN/COMMIT.
 */
export interface TxOp {
  kind: 'all' | 'run';
  q: CompiledSql;
}

export type Tx<T> = Generator<TxOp, T, unknown>;

/** Rows of a query inside a transaction. */
export function* all<R>(q: CompiledSql): Generator<TxOp, R[], unknown> {
  return (yield { kind: 'all', q }) as R[];
}

/** Rows changed by a statement inside a transaction. */
export function* run(q: CompiledSql): Generator<TxOp, number, unknown> {
  return (yield { kind: 'run', q }) as number;
}

/** What an adapter provides to the training store. */
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
