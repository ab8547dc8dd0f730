import type Database from 'better-sqlite3';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { TxOp } from '../sql/core/sql-tx.js';
import { bindNamed, writerStatement } from './statements.js';

/**
 * Transactions whose logic stays on the main thread (the read-check-write bodies of the stores
 * written over store/sql/core/sql-tx.ts): inside the write's savepoint the writer thread asks the main
 * thread for each statement, runs it, and hands back the result, blocking until the next answer.
 * The writer waits for the main thread meanwhile, so this is for rare writes, not for ingest.
 */

/** Writer thread → main: start the body, or the previous statement's result; or give up. */
export type TxAsk =
  | { txId: number; seq: number; start: true }
  | { txId: number; seq: number; result: unknown }
  | { txId: number; abandon: true };
/** Main → writer thread: the next statement, the end (the value stays on the main thread), or a failure. */
export type TxAnswer = { txId: number; seq: number } & ({ op: TxOp } | { done: true } | { failed: true });

/** Set on the main thread when the body threw; the original error is kept there. */
export class TxBodyFailed extends Error {}

/** How long the writer waits for one answer before giving the transaction up. */
const ANSWER_TIMEOUT_MS = 30_000;

let link: { port: MessagePort; signal: Int32Array } | null = null;

/** Called once in the writer thread with the channel the main thread answers on. */
export function connectTransactions(port: MessagePort, signal: Int32Array): void {
  link = { port, signal };
}

function ask(question: TxAsk & { seq: number }): TxAnswer {
  const { port, signal } = link!;
  Atomics.store(signal, 0, 0);
  port.postMessage(question);
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  for (;;) {
    const received = receiveMessageOnPort(port);
    // answers to an earlier, abandoned question are dropped
    if (received) {
      const answer = received.message as TxAnswer;
      if (answer.txId === question.txId && answer.seq === question.seq) return answer;
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new Error('The main thread did not answer the writer thread within 30 s');
    Atomics.wait(signal, 0, 0, left);
    Atomics.store(signal, 0, 0);
  }
}

/** Runs one statement (or list) of a transaction body on the writer connection. */
export function execTxOp(db: Database.Database, op: TxOp): unknown {
  if (op.kind === 'runAll') return op.qs.map((q) => writerStatement(db, q.sql).run(bindNamed(q.params)).changes);
  const statement = writerStatement(db, op.q.sql);
  return op.kind === 'all' ? statement.all(bindNamed(op.q.params)) : statement.run(bindNamed(op.q.params)).changes;
}

/** Runs transaction `txId` (registered on the main thread) inside the current savepoint. */
export function runTransaction(db: Database.Database, txId: number): null {
  let seq = 0;
  let answer = ask({ txId, seq, start: true });
  while ('op' in answer) {
    let result: unknown;
    try {
      result = execTxOp(db, answer.op);
    } catch (error) {
      link!.port.postMessage({ txId, abandon: true } satisfies TxAsk);
      throw error;
    }
    seq += 1;
    answer = ask({ txId, seq, result });
  }
  if ('failed' in answer) throw new TxBodyFailed('transaction body failed');
  return null;
}
