import { randomBytes } from 'node:crypto';
import { IdleWait } from './idle-wait.js';

/** How long an idle loop waits before looking at its queue again (work queued on this node wakes it at once). */
const IDLE_POLL_MS = 1000;

/**
 * The loop shared by a node's queue runners (background jobs, the built-in trainer): lease one
 * item, run it, and when the queue is empty wait for the next poll or a notify(). stop() ends the
 * loop after the item in hand; `shutdown` fires first, so a running item can abort.
 */
export abstract class LeaseLoop<Leased> {
  readonly owner: string;
  protected readonly shutdown = new AbortController();
  readonly #idleWait = new IdleWait(IDLE_POLL_MS, this.shutdown.signal);
  #loop: Promise<void> | null = null;

  constructor(ownerPrefix: string) {
    this.owner = `${ownerPrefix}-${randomBytes(6).toString('hex')}`;
  }

  /** The next item of the queue, or null when there is none (a failure is logged and counts as none). */
  protected abstract lease(): Promise<Leased | null>;
  protected abstract execute(leased: Leased): Promise<void>;
  /** Why a running item is aborted at shutdown. */
  protected abstract shutdownReason(): Error;

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Work was queued on this node: look now instead of at the next poll. */
  notify(): void {
    this.#idleWait.notify();
  }

  async stop(): Promise<void> {
    this.shutdown.abort(this.shutdownReason());
    // the loop may be between a lease and its idle wait: that wait must not begin
    this.notify();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.shutdown.signal.aborted) {
      this.#idleWait.reset();
      const leased = await this.lease();
      if (leased === null) await this.#idleWait.wait();
      else await this.execute(leased);
    }
  }
}
