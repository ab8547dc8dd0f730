import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs `work` while holding a machine-wide lock (a directory in the temp folder), so that test
 * files running in parallel processes set up a shared resource (a virtualenv, the PostgreSQL
 * cluster) once instead of racing each other. A lock older than `staleAfterMs` is taken over.
 */
export async function withFileLock<T>(name: string, work: () => Promise<T>, staleAfterMs = 20 * 60_000): Promise<T> {
  const lock = path.join(os.tmpdir(), `${name}.lock`);
  const deadline = Date.now() + staleAfterMs;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleAfterMs) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
