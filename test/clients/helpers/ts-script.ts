import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { REPO_ROOT } from '../../helpers/server-process.js';
import type { RecordedExchange } from '../ts/demo-output.js';
import type { ScriptOutputBase } from '../ts/record-fetch.js';
import { describeFailures, failedExchanges } from './ts-demo.js';

/** The tsx loader as a file URL: `--import tsx` would be resolved from the (temporary) cwd. */
const TSX_LOADER = import.meta.resolve('tsx');

export interface ScriptRun<T> {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** `weaveErrors.log` the client wrote into its cwd, or null. */
  errorsLog: string | null;
  /** What the script wrote to HEDDLE_DEMO_OUT; null when it died before writing anything. */
  output: T | null;
}

/**
 * Runs a script of test/clients/ts/ (which calls setUpScript from record-fetch.ts) in `cwd`, a
 * temp dir (the client appends failures to ./weaveErrors.log and reads ~/.netrc), against
 * `serverUrl`. Killed by pid when it outlives `timeoutMs` or the test.
 */
export async function runTsScript<T extends ScriptOutputBase>(
  t: Pick<TestContext, 'after'>,
  script: string,
  opts: { serverUrl: string; apiKey: string; cwd: string; timeoutMs: number; env?: Record<string, string> },
): Promise<ScriptRun<T>> {
  const outFile = path.join(opts.cwd, `${path.basename(script, '.ts')}-output.json`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.env,
    WF_TRACE_SERVER_URL: opts.serverUrl,
    WANDB_API_KEY: opts.apiKey,
    HOME: opts.cwd,
    HEDDLE_DEMO_OUT: outFile,
    HEDDLE_DEMO_DEADLINE_MS: String(Math.max(1_000, opts.timeoutMs - 5_000)),
  };
  delete env.WANDB_BASE_URL;
  const child = spawn(
    process.execPath,
    ['--import', TSX_LOADER, path.join(REPO_ROOT, 'test', 'clients', 'ts', script)],
    {
      cwd: opts.cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(child.pid, 'SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)));
  const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), opts.timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  const logFile = path.join(opts.cwd, 'weaveErrors.log');
  return {
    code,
    signal,
    stderr,
    errorsLog: fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : null,
    output: fs.existsSync(outFile) ? (JSON.parse(fs.readFileSync(outFile, 'utf8')) as T) : null,
  };
}

/** A compact account of a run for assertion messages. */
export function describeScriptRun(run: ScriptRun<ScriptOutputBase>): string {
  const out = run.output;
  return [
    `exit code ${run.code}, signal ${run.signal}`,
    out ? `finished=${out.finished} failure=${out.failure}` : 'no output file',
    out && out.unhandledRejections.length > 0
      ? `unhandled rejections: ${out.unhandledRejections.slice(0, 3).join(' | ')}`
      : '',
    out ? `failed exchanges:\n${describeFailures(failedExchanges(out.exchanges)) || '  none'}` : '',
    run.errorsLog ? `weaveErrors.log:\n${run.errorsLog.slice(-2000)}` : '',
    `stderr (tail):\n${run.stderr.slice(-2000)}`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The parsed JSON body a recorded request carried (record-fetch.ts keeps `{json, raw}`). */
export function requestJson(e: RecordedExchange): any {
  return (e.request as { json?: unknown } | null)?.json;
}

/** The exact request body text the client sent. */
export function requestRaw(e: RecordedExchange): string {
  return String((e.request as { raw?: unknown } | null)?.raw ?? '');
}

/** The parsed JSON response body of a recorded exchange. */
export function responseJson(e: RecordedExchange): any {
  return JSON.parse(e.response ?? 'null');
}
