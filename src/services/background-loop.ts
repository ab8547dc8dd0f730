import type { BackgroundLog } from '../domain/log.js';

/**
 * Work every node runs beside its requests (the training runtime, the job runners, the monitor poll,
 * the retention scheduler, the call indexer …): started once the app is ready and stopped, in the
 * same order, before the store closes. The app starts whatever `Services.loops` lists (app.ts).
 */
export interface BackgroundLoop {
  readonly name: string;
  start(log: BackgroundLog): void | Promise<void>;
  stop(): void | Promise<void>;
}

/** A loop over an object that has `start` (and maybe `stop`), named for the logs. */
export function backgroundLoop(
  name: string,
  target: { start(log: BackgroundLog): void | Promise<void>; stop?(): void | Promise<void> },
): BackgroundLoop {
  return { name, start: (log) => target.start(log), stop: () => target.stop?.() };
}
