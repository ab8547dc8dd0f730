import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openConnection, WRITER_WAL_AUTOCHECKPOINT } from './connection.js';
import type { CallTextStep } from '../call-text-types.js';
import type { IndexerStep } from '../sql/call-indexes/text-index.js';
import { applyWrites, type WireWrite } from './group-commit.js';
import { IndexCatchUp } from './index-catch-up.js';
import { connectTransactions } from './tx-writes.js';

/**
 * The writer thread: owns the store's only writer connection. Writes that arrive while it is
 * busy are applied together in the next group (one transaction, one commit), so HTTP parsing
 * and validation on the main thread overlap with SQLite's work here.
 */

export interface WriterThreadOptions {
  file: string;
  synchronous: string;
  /** Whether this thread carries on the indexer's steps by itself (index-catch-up.ts). */
  indexCatchUp: boolean;
  /** The channel on which the main thread answers interactive transactions (tx-writes.ts). */
  txPort: MessagePort;
  txSignal: Int32Array;
}

export type ToWriter = { type: 'writes'; writes: WireWrite[] } | { type: 'close' };

const port = parentPort!;
const options = workerData as WriterThreadOptions;
const db = openConnection(options.file, options.synchronous, false);
db.pragma(`wal_autocheckpoint = ${WRITER_WAL_AUTOCHECKPOINT}`);
connectTransactions(options.txPort, options.txSignal);
let queue: WireWrite[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  const writes = queue;
  queue = [];
  if (writes.length === 0) return;
  const outcomes = applyWrites(db, writes);
  port.postMessage({ type: 'outcomes', outcomes });
  if (writes.some(([, name]) => name !== 'callText.step')) catchUp.noteWrites();
  for (const [id, name, args] of writes) {
    if (name !== 'callText.step') continue;
    const outcome = outcomes.find((o) => o[0] === id);
    if (outcome?.[1] && options.indexCatchUp) catchUp.noteStep(args as IndexerStep, outcome[2] as CallTextStep);
  }
}

// the indexer's steps this thread carries on while the main thread is busy (index-catch-up.ts)
const catchUp = new IndexCatchUp((step) => {
  const [outcome] = applyWrites(db, [[0, 'callText.step', step]]);
  return outcome?.[1] ? (outcome[2] as CallTextStep) : null;
}, flush);

port.on('message', (message: ToWriter) => {
  if (message.type === 'writes') {
    for (const write of message.writes) queue.push(write);
    // messages that are already waiting are delivered before the immediate: they join this group
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return;
  }
  flush();
  catchUp.close();
  db.close();
  port.postMessage({ type: 'closed' });
  port.close();
});
