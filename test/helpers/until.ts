import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` every 20 ms until it answers something other than null, and answers that; throws
 * naming `what` once `ms` have passed. For tests that wait on background work (jobs, monitors).
 */
export async function until<T>(what: string, probe: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
