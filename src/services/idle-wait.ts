/**
 * The pause of a polling loop after an empty poll (the job runners): it ends after `pollMs`, at
 * once when notify() is called (a job was queued on this node), and never begins once `stopping`
 * has fired. A notify that arrives while the loop is polling is remembered for the next wait, so
 * it is never lost. The timer is unref'd: an idle loop does not keep the process alive, which is why
 * stopping must always end the wait.
 */
export class IdleWait {
  #wake: (() => void) | null = null;
  #notified = false;

  constructor(
    private readonly pollMs: number,
    private readonly stopping: AbortSignal,
  ) {}

  /** Called as a poll begins: notifications before it are answered by that poll. */
  reset(): void {
    this.#notified = false;
  }

  notify(): void {
    if (this.#wake) this.#wake();
    else this.#notified = true;
  }

  wait(): Promise<void> {
    if (this.#notified || this.stopping.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      timer.unref();
      this.#wake = done;
    });
  }
}
