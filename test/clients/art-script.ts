import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs test/clients/python/art_training_loop.py (the official ART client's serverless loop, see
 * docs/art-client.md) with the venv's interpreter in a fresh HOME, against a Heddle at `heddle.url`;
 * resolves with its last-line JSON. Used by test/clients/art-client.test.ts and test/ui/training-art.test.ts.
 */

export const ART_SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'art_training_loop.py');
const SCRIPT_TIMEOUT_MS = 8 * 60_000;

export type ArtJson = Record<string, any>;

export function runArt(
  python: string,
  heddle: { url: string; output: () => string },
  key: string,
  args: string[],
): Promise<{ result: ArtJson; log: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-art-'));
  // No WANDB_API_KEY: ART would also start a W&B run; the key reaches ServerlessBackend(api_key=...).
  // LITELLM_LOCAL_MODEL_COST_MAP: litellm (imported by art) otherwise fetches a price list from GitHub.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    PYTHONUNBUFFERED: '1',
    HEDDLE_API_KEY: key,
    LITELLM_LOCAL_MODEL_COST_MAP: 'True',
  };
  const fullArgs = [ART_SCRIPT, args[0]!, `${heddle.url}/v1`, ...args.slice(1)];
  return new Promise((resolve, reject) => {
    execFile(
      python,
      fullArgs,
      { cwd: home, env, timeout: SCRIPT_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        fs.rmSync(home, { recursive: true, force: true });
        const log = `--- python stdout\n${stdout.slice(-8000)}\n--- python stderr\n${stderr.slice(-8000)}\n--- heddle output (tail)\n${heddle.output().slice(-6000)}`;
        if (error) return reject(new Error(`art_training_loop.py ${args.join(' ')} failed: ${error.message}\n${log}`));
        try {
          resolve({ result: JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ArtJson, log });
        } catch {
          reject(new Error(`art_training_loop.py printed no JSON result\n${log}`));
        }
      },
    );
  });
}
