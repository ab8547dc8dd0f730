/**
 * Main-thread side of one trainer worker thread: starts it on demand, matches replies to requests,
 * forwards progress (acknowledged only after the caller's handler resolved) and checkpoint loads,
 * and terminates the thread on abort or failure (the next request starts a fresh one).
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../worker-entry.js';
import { TrainingContentError } from '../trainer-port.js';
import type { FromWorker, ToWorker, WorkerOptions, WorkerRequest } from './protocol.js';

export interface RequestHandlers {
  onProgress?: (progress: Extract<FromWorker, { type: 'progress' }>['progress']) => Promise<void>;
  loadCheckpoint?: () => Promise<Uint8Array | null>;
}

interface Pending extends RequestHandlers {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export function abortError(signal: AbortSignal): Error {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
  const err = new Error(`training aborted: ${reason}`);
  err.name = 'AbortError';
  return err;
}

export class WorkerHost {
  private worker: Worker | null = null;
  private readyPromise: Promise<string> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  backend: string | null = null;

  constructor(private readonly options: WorkerOptions) {}

  /** Starts the thread if needed; resolves with its tfjs backend (`wasm` or `cpu`). */
  start(): Promise<string> {
    if (this.readyPromise) return this.readyPromise;
    const worker = startWorker(import.meta.url, 'worker-main', { workerData: this.options });
    this.worker = worker;
    this.readyPromise = new Promise<string>((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          this.backend = m.backend;
          this.unrefIfIdle(worker);
          resolve(m.backend);
        } else void this.onMessage(worker, m);
      });
      worker.on('error', (err) => {
        reject(err);
        this.fail(worker, err);
      });
      worker.on('exit', (code) => this.fail(worker, new Error(`trainer worker exited (code ${code})`)));
    });
    this.readyPromise.catch(() => undefined);
    return this.readyPromise;
  }

  /**
   * Sends one request; rejects with an AbortError when `signal` fires. With `terminateOnAbort` the
   * thread is ended too (a training job stops at once); otherwise its answer is just dropped.
   */
  async request(
    message: WorkerRequest,
    handlers: RequestHandlers,
    signal?: AbortSignal,
    terminateOnAbort = false,
  ): Promise<unknown> {
    if (signal?.aborted) throw abortError(signal);
    await this.start();
    const worker = this.worker!;
    const id = this.nextId++;
    const result = new Promise<unknown>((resolve, reject) => this.pending.set(id, { ...handlers, resolve, reject }));
    const onAbort = () => {
      const p = this.pending.get(id);
      if (!p) return;
      p.reject(abortError(signal!));
      if (terminateOnAbort) {
        this.pending.delete(id);
        void this.terminate();
        return;
      }
      // Keep the entry (its checkpoint loader may still be asked for) but drop the answer.
      p.resolve = p.reject = () => undefined;
      p.onProgress = undefined;
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.ref();
    worker.postMessage({ ...message, id } as ToWorker);
    try {
      return await result;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.unrefIfIdle(worker);
    }
  }

  /** An idle thread must not keep the process alive. */
  private unrefIfIdle(worker: Worker): void {
    if (this.pending.size === 0 && this.worker === worker) worker.unref();
  }

  private async onMessage(worker: Worker, m: FromWorker): Promise<void> {
    if (m.type === 'ready') return;
    const p = this.pending.get(m.id);
    if (!p) {
      // An abandoned request (aborted caller): unblock the worker so it can finish and go on.
      if (m.type === 'progress') worker.postMessage({ type: 'ack', id: m.id } satisfies ToWorker);
      return;
    }
    try {
      if (m.type === 'progress') {
        await p.onProgress?.(m.progress);
        if (this.pending.has(m.id)) worker.postMessage({ type: 'ack', id: m.id } satisfies ToWorker);
      } else if (m.type === 'need_checkpoint') {
        const bytes = p.loadCheckpoint ? await p.loadCheckpoint() : null;
        worker.postMessage({ type: 'checkpoint', id: m.id, bytes } satisfies ToWorker);
      } else {
        this.pending.delete(m.id);
        this.unrefIfIdle(worker);
        if (m.type === 'result') p.resolve(m.value);
        else
          p.reject(
            m.name === 'TrainingContentError'
              ? new TrainingContentError(m.message)
              : Object.assign(new Error(m.message), { name: m.name }),
          );
      }
    } catch (err) {
      // The caller's handler failed (e.g. the event could not be stored): the job ends here.
      this.pending.delete(m.id);
      p.reject(err instanceof Error ? err : new Error(String(err)));
      await this.terminate();
    }
  }

  private fail(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.readyPromise = null;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  async terminate(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.fail(worker, new Error('trainer worker stopped'));
    await worker.terminate();
  }
}
