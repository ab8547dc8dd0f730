/**
 * Loads tfjs and picks its backend: WASM (SIMD, ~9× faster than the pure-JS backend here, see
 * ENVIRONMENT.md) with the binaries from node_modules — nothing is fetched at run time — and the
 * `cpu` backend when WASM cannot start. The umbrella package is imported because tfjs-core's Node
 * bundle registers no gradients.
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export { tf };

let chosen: Promise<string> | null = null;

async function pick(preferred: 'wasm' | 'cpu'): Promise<string> {
  if (preferred === 'wasm') {
    try {
      const require = createRequire(import.meta.url);
      const dir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist');
      setWasmPaths(pathToFileURL(dir).href + '/');
      if (await tf.setBackend('wasm')) return 'wasm';
    } catch {
      // Fall through to the cpu backend below.
    }
  }
  await tf.setBackend('cpu');
  return 'cpu';
}

/** Initialises the backend once per thread; resolves to the backend's name (`wasm` or `cpu`). */
export function initBackend(preferred: 'wasm' | 'cpu' = 'wasm'): Promise<string> {
  chosen ??= pick(preferred).then(async (name) => {
    await tf.ready();
    return name;
  });
  return chosen;
}
