import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Child processes under test: the Heddle server (`node --import tsx src/main.ts serve`) and the
 * bare baseline servers. Each listens on 127.0.0.1, is watched through /proc/<pid> (peak RSS,
 * CPU time) and is stopped by its pid.
 */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildServer {
  name: string;
  pid: number;
  /** Epoch ms when the process exited (null while it runs). */
  exitedAt(): number | null;
  url: string;
  /** stdout+stderr tail, for error messages. */
  output(): string;
  /** VmHWM (peak resident set) in bytes, or null when /proc is unavailable. */
  peakRss(): number | null;
  /** Resets VmHWM to the current RSS (Linux `clear_refs` 5), so the next reading covers one phase. */
  resetPeakRss(): void;
  /** User + system CPU seconds used so far. */
  cpuSeconds(): number;
  /** SIGTERM by pid (SIGKILL after 15 s); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** A port the kernel reports free right now (the server binds it a moment later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function readProc(pid: number, file: string): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

export function watch(name: string, child: ChildProcess, url: string, tail: () => string): ChildServer {
  const pid = child.pid!;
  let exitedAt: number | null = null;
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else
      child.once('exit', (code) => {
        exitedAt = Date.now();
        resolve(code);
      });
  });
  return {
    name,
    pid,
    exitedAt: () => exitedAt,
    url,
    output: tail,
    peakRss: () => {
      const match = /^VmHWM:\s+(\d+) kB/m.exec(readProc(pid, 'status') ?? '');
      return match ? Number(match[1]) * 1024 : null;
    },
    resetPeakRss: () => {
      try {
        fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        // not Linux, or not allowed: readings then cover the process lifetime
      }
    },
    cpuSeconds: () => {
      const stat = readProc(pid, 'stat') ?? '';
      // fields after the parenthesised command name; utime and stime are the 14th and 15th overall
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
        const timer = setTimeout(() => {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // exited meanwhile
          }
        }, 15_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      }
      return exited;
    },
  };
}

export function spawnTracked(
  args: string[],
  env: NodeJS.ProcessEnv,
  file = process.execPath,
  cwd = REPO_ROOT,
): { child: ChildProcess; tail: () => string } {
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const append = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-32_768);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  return { child, tail: () => tail };
}

export async function waitUntil(
  ready: () => Promise<boolean>,
  child: ChildProcess,
  tail: () => string,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}:\n${tail()}`);
    if (await ready().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s:\n${tail()}`);
}

export interface HeddleOptions {
  dataDir: string;
  adminKey: string;
  /**
   * Write V8 CPU profiles into this folder when the server exits: one file per thread
   * (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`; thread 0 is the main thread, the
   * others are tsx's module-loader worker).
   */
  cpuProfileDir?: string;
  /** More HEDDLE_* settings (the store, replicas). */
  env?: Record<string, string>;
}

/**
 * How the server runs: from source under tsx (the default, what every recorded figure used), or with
 * BENCH_SERVER=dist the compiled `dist/main.js` that `npm start` runs (build it first with
 * `npm run build:server`). tsx's loader thread and source transforms add about 95 MiB of RSS, so
 * memory figures of the production server need `dist`.
 */
function serverEntry(): string[] {
  const mode = process.env.BENCH_SERVER ?? 'tsx';
  if (mode === 'tsx') return ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'main.ts')];
  if (mode !== 'dist') throw new Error(`BENCH_SERVER must be tsx or dist, got ${mode}`);
  const entry = path.join(REPO_ROOT, 'dist', 'main.js');
  if (!fs.existsSync(entry)) throw new Error(`BENCH_SERVER=dist needs ${entry}: run npm run build:server`);
  return [entry];
}

/** Starts Heddle on a free loopback port with warn-level logs; resolves once /health answers. */
export async function startHeddle(opts: HeddleOptions): Promise<ChildServer> {
  const port = await freePort();
  const profile = opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`] : [];
  const env = {
    ...process.env,
    HEDDLE_DATA_DIR: opts.dataDir,
    HEDDLE_ADMIN_KEY: opts.adminKey,
    HEDDLE_LOG_LEVEL: 'warn',
    ...opts.env,
    HEDDLE_HOST: '127.0.0.1',
    HEDDLE_PORT: String(port),
    ...opts.env,
  };
  const { child, tail } = spawnTracked([...profile, ...serverEntry(), 'serve'], env);
  const url = `http://127.0.0.1:${port}`;
  const server = watch('heddle', child, url, tail);
  try {
    await waitUntil(async () => (await fetch(`${url}/health`)).ok, child, tail, 'Heddle');
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/** Starts bench/bare-server.ts (`http` = node:http, `fastify` = Fastify without our plugins). */
export async function startBare(kind: 'http' | 'fastify'): Promise<ChildServer> {
  const port = await freePort();
  const script = path.join(REPO_ROOT, 'bench', 'bare-server.ts');
  const { child, tail } = spawnTracked(['--import', 'tsx', script, kind, String(port)], process.env);
  const url = `http://127.0.0.1:${port}`;
  const server = watch(`bare-${kind}`, child, url, tail);
  try {
    await waitUntil(async () => /listening/.test(tail()), child, tail, `bare ${kind} server`);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
