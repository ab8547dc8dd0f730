/**
 * Starts a worker thread whose entry module sits next to the caller, in both ways the code runs:
 * compiled (`node dist/main.js`), the `.js` file, started plainly; from source under tsx (the test
 * suite, `node --import tsx`), the `.ts` file, with tsx's hooks registered inside the thread.
 *
 * On Node 20 `--import tsx` registers its hooks on the main thread only (tsx's
 * dist/esm/index.mjs checks `isMainThread` there), so an inherited execArgv is not enough: the
 * thread gets `--import` of a one-line module that calls tsx's own `register()`, and only that (the
 * parent's execArgv may hold flags a worker refuses, such as --max-old-space-size). That branch runs
 * only from source, so the compiled server never resolves tsx (a dev dependency); compiled workers
 * inherit the parent's execArgv as Node does by default.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `name` without extension, e.g. `writer-worker`; `callerUrl` is the caller's `import.meta.url`. */
export function startWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = callerUrl.endsWith('.ts');
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, callerUrl);
  if (!fromSource) return new Worker(entry, options);
  return new Worker(entry, { ...options, execArgv: ['--import', tsxRegisterModule()] });
}

function tsxRegisterModule(): string {
  const api = import.meta.resolve('tsx/esm/api');
  return `data:text/javascript,import{register}from${encodeURIComponent(JSON.stringify(api))};register();`;
}
