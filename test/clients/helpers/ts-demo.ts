import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { basicAuthHeader, REPO_ROOT } from '../../helpers/server-process.js';
import type { DemoOutput, RecordedExchange } from '../ts/demo-output.js';

/** The tsx loader as a file URL: `--import tsx` would be resolved from the (temporary) cwd. */
const TSX_LOADER = import.meta.resolve('tsx');
const DEMO_SCRIPT = path.join(REPO_ROOT, 'test', 'clients', 'ts', 'trace-demo.ts');

export interface DemoRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Contents of `weaveErrors.log` the client wrote into its cwd, or null when it wrote none. */
  errorsLog: string | null;
  /** What the script recorded; null when it died before writing anything. */
  output: DemoOutput | null;
}

/**
 * Runs test/clients/ts/trace-demo.ts in `cwd` (a temp dir, so `weaveErrors.log` stays out of the
 * repository) against `serverUrl`. The child is killed by pid if it outlives `timeoutMs` or the test.
 */
export async function runTraceDemo(
  t: Pick<TestContext, 'after'>,
  opts: { serverUrl: string; apiKey: string; cwd: string; timeoutMs: number },
): Promise<DemoRun> {
  const outFile = path.join(opts.cwd, 'demo-output.json');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WF_TRACE_SERVER_URL: opts.serverUrl,
    WANDB_API_KEY: opts.apiKey,
    // A developer's own ~/.netrc and ~/.config/wandb must not leak in: with "entity/project" the
    // client needs nothing but the two variables above.
    HOME: opts.cwd,
    HEDDLE_DEMO_OUT: outFile,
    HEDDLE_DEMO_DEADLINE_MS: String(Math.max(1_000, opts.timeoutMs - 5_000)),
  };
  delete env.WANDB_BASE_URL;
  const child = spawn(process.execPath, ['--import', TSX_LOADER, DEMO_SCRIPT], {
    cwd: opts.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(child.pid, 'SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), opts.timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  const logFile = path.join(opts.cwd, 'weaveErrors.log');
  return {
    code,
    signal,
    stdout,
    stderr,
    errorsLog: fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : null,
    output: fs.existsSync(outFile) ? (JSON.parse(fs.readFileSync(outFile, 'utf8')) as DemoOutput) : null,
  };
}

/** Exchanges that did not succeed (no response, or a status outside 2xx). */
export function failedExchanges(exchanges: RecordedExchange[]): RecordedExchange[] {
  return exchanges.filter((e) => e.status === null || e.status < 200 || e.status >= 300);
}

/**
 * One line per distinct failure (`POST /obj/create → 404 {"detail":"Not Found"} (×3)`), then the
 * first request body of each, so a failing test names the endpoint and the body it was sent.
 */
export function describeFailures(failed: RecordedExchange[]): string {
  const groups = new Map<string, { count: number; first: RecordedExchange }>();
  for (const e of failed) {
    const key =
      `${e.method} ${e.path} → ${e.status ?? `no response (${e.error ?? 'pending at exit'})`} ${e.response ?? ''}`.trim();
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { count: 1, first: e });
  }
  return [...groups]
    .map(
      ([key, { count, first }]) =>
        `${key} (×${count})\n    first request body: ${JSON.stringify(first.request).slice(0, 1500)}`,
    )
    .join('\n');
}

/** A compact account of a demo run for assertion messages. */
export function describeRun(run: DemoRun): string {
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

/** POSTs JSON with Basic `api:<key>` and returns the response. */
export async function postJson(baseUrl: string, apiKey: string, url: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${url}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(apiKey), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Every call of a project through `/calls/stream_query` (JSON Lines), oldest first. */
export async function streamAllCalls(
  baseUrl: string,
  apiKey: string,
  projectId: string,
): Promise<Array<Record<string, any>>> {
  const res = await postJson(baseUrl, apiKey, '/calls/stream_query', {
    project_id: projectId,
    sort_by: [{ field: 'started_at', direction: 'asc' }],
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/calls/stream_query answered ${res.status}: ${text}`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}
