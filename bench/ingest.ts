import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { summariseDir, type ProfileWindow } from './lib/cpu-profile.js';
import {
  batchPhase,
  buildUnbatched,
  buildWorkload,
  rawStorePhase,
  unbatchedPhase,
  type Workload,
} from './lib/ingest-phases.js';
import { LoadClient } from './lib/load.js';
import { measuredSpans, type PhaseResult } from './lib/measure.js';
import { REPO_ROOT, startBare, startHeddle, type ChildServer } from './lib/processes.js';
import { latencyPhase, RARE_EVERY, seedStore, streamPhase, type SeedInfo } from './lib/query-phases.js';
import { CALLS_PER_TRACE } from './lib/workload.js';
import { machineInfo, phaseTable, summaryTable, writeResults, type Summary } from './lib/report.js';

/**
 * The ingest and query benchmark (npm run bench:ingest). One run measures, against a Heddle
 * server in its own process on loopback: batch ingest through /call/upsert_batch next to the raw
 * store and bare HTTP baselines, unbatched start/end pairs, streaming a whole project, and
 * first-page latency over a large store; plus the server's peak RSS. Sizes scale with
 * BENCH_SCALE (e.g. 0.1 for a quick run); see BENCHMARKS.md for every knob.
 */

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return Math.max(1, Math.round(fallback));
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

function loadConfig() {
  const scale = Number(process.env.BENCH_SCALE ?? '1');
  if (!(scale > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${process.env.BENCH_SCALE}`);
  const batchCalls = envInt('BENCH_BATCH_CALLS', 100);
  return {
    scale,
    batchCalls,
    ingestCalls: envInt('BENCH_INGEST_CALLS', 100_000 * scale),
    storedCalls: envInt('BENCH_STORED_CALLS', 1_000_000 * scale),
    unbatchedCalls: envInt('BENCH_UNBATCHED_CALLS', 20_000 * scale),
    warmupBatches: envInt('BENCH_WARMUP_BATCHES', 20),
    concurrency: envInt('BENCH_CONCURRENCY', 4),
    unbatchedClients: envInt('BENCH_UNBATCHED_CLIENTS', 32),
    streamRuns: envInt('BENCH_STREAM_RUNS', 3),
    /** The bare baselines are fast and stateless: send the workload this many times for a steadier rate. */
    bareRounds: envInt('BENCH_BARE_ROUNDS', 3),
    latencyRequests: Math.max(50, envInt('BENCH_LATENCY_REQUESTS', 100)),
    seedChunkCalls: envInt('BENCH_SEED_CHUNK_CALLS', 10_000),
    cpuProfile: process.env.BENCH_CPU_PROF === '1',
    /** Also measure first pages after ANALYZE (a proposal; the server does not run it). */
    analyze: process.env.BENCH_ANALYZE !== '0',
  };
}
type BenchConfig = ReturnType<typeof loadConfig>;

/** Everything the run started or created, undone on exit (also on Ctrl-C or failure). */
class Cleanup {
  readonly servers = new Set<ChildServer>();
  readonly dirs = new Set<string>();

  tempDir(prefix: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.dirs.add(dir);
    return dir;
  }

  async run(): Promise<void> {
    for (const server of this.servers) await server.stop();
    this.servers.clear();
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
    this.dirs.clear();
  }
}

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

/** Per phase, the span of the server's life that was measured (to cut its CPU profile). */
const profileWindows = new Map<string, ProfileWindow>();

/** Starts a Heddle server, runs `fn`, stops it (one process per phase, so profiles and RSS stay per phase). */
async function withHeddle<T>(
  cleanup: Cleanup,
  opts: { dataDir: string; adminKey: string; profileDir: string | null; phase: string },
  fn: (server: ChildServer) => Promise<T>,
): Promise<T> {
  const cpuProfileDir = opts.profileDir ? path.join(opts.profileDir, opts.phase) : undefined;
  const server = await startHeddle({ dataDir: opts.dataDir, adminKey: opts.adminKey, cpuProfileDir });
  cleanup.servers.add(server);
  try {
    return await fn(server);
  } finally {
    await server.stop();
    cleanup.servers.delete(server);
    const spans = measuredSpans.filter((m) => m.pid === server.pid);
    const exitedAt = server.exitedAt();
    if (spans.length > 0 && exitedAt !== null) {
      profileWindows.set(opts.phase, {
        from: Math.min(...spans.map((m) => m.from)),
        to: Math.max(...spans.map((m) => m.to)),
        exitedAt,
      });
    }
  }
}

async function withBare<T>(
  cleanup: Cleanup,
  kind: 'http' | 'fastify',
  fn: (server: ChildServer) => Promise<T>,
): Promise<T> {
  const server = await startBare(kind);
  cleanup.servers.add(server);
  try {
    return await fn(server);
  } finally {
    await server.stop();
    cleanup.servers.delete(server);
  }
}

async function countCalls(server: ChildServer, apiKey: string, project: string): Promise<number> {
  const client = new LoadClient(server.url, apiKey, 1);
  try {
    const reply = await client.postOk('/calls/query_stats', JSON.stringify({ project_id: project }), true);
    return (JSON.parse(reply.text!) as { count: number }).count;
  } finally {
    client.close();
  }
}

async function writePhases(
  cleanup: Cleanup,
  cfg: BenchConfig,
  key: string,
  dataDir: string,
  profileDir: string | null,
) {
  log(`building workload: ${cfg.ingestCalls} calls in batches of ${cfg.batchCalls}`);
  const work = buildWorkload('bench/ingest', cfg.ingestCalls, cfg.batchCalls);
  const warmup: Workload = buildWorkload('bench/warmup', cfg.warmupBatches * cfg.batchCalls, cfg.batchCalls);
  log(`raw store phase (${Math.round(work.bytesPerCall)} bytes per call on the wire)`);
  const rawStore = await rawStorePhase(work, warmup, cfg.concurrency);
  log('bare node:http phase');
  const bareHttp = await withBare(cleanup, 'http', (s) =>
    batchPhase('bare node:http, JSON.parse only', s, null, work, warmup, cfg.concurrency, cfg.bareRounds),
  );
  log('bare Fastify phase');
  const bareFastify = await withBare(cleanup, 'fastify', (s) =>
    batchPhase('bare Fastify, no plugins', s, null, work, warmup, cfg.concurrency, cfg.bareRounds),
  );
  log('Heddle /call/upsert_batch phase');
  const batch = await withHeddle(cleanup, { dataDir, adminKey: key, profileDir, phase: 'batch' }, async (s) => {
    const result = await batchPhase(
      `Heddle /call/upsert_batch (${cfg.batchCalls} calls = ${2 * cfg.batchCalls} items per request)`,
      s,
      key,
      work,
      warmup,
      cfg.concurrency,
    );
    const stored = await countCalls(s, key, work.project);
    if (stored !== work.calls)
      throw new Error(`after batch ingest the project holds ${stored} calls, expected ${work.calls}`);
    return result;
  });
  log('Heddle unbatched phase');
  const unbatchedWork = buildUnbatched('bench/unbatched', cfg.unbatchedCalls);
  const unbatchedWarmup = buildUnbatched('bench/warmup-unbatched', Math.min(2000, cfg.unbatchedCalls));
  const unbatched = await withHeddle(cleanup, { dataDir, adminKey: key, profileDir, phase: 'unbatched' }, (s) =>
    unbatchedPhase(s, key, unbatchedWarmup, unbatchedWork, cfg.unbatchedClients),
  );
  return {
    rawStore,
    bareHttp,
    bareFastify,
    batch,
    unbatched,
    bytesPerCall: work.bytesPerCall,
    ingested: work.calls,
    project: work.project,
  };
}

async function readPhases(
  cleanup: Cleanup,
  cfg: BenchConfig,
  key: string,
  ingest: { dataDir: string; project: string; calls: number },
  profileDir: string | null,
) {
  log(`stream phase: ${ingest.calls} calls`);
  const stream = await withHeddle(
    cleanup,
    { dataDir: ingest.dataDir, adminKey: key, profileDir, phase: 'stream' },
    (s) => streamPhase(s, key, ingest.project, ingest.calls, cfg.streamRuns),
  );
  fs.rmSync(ingest.dataDir, { recursive: true, force: true });
  log(`seeding ${cfg.storedCalls} calls`);
  const storedDir = cleanup.tempDir('heddle-bench-stored-');
  const seed = await seedStore(storedDir, cfg.storedCalls, cfg.seedChunkCalls);
  log('first-page latency phase');
  const latency = await latencyPages(cleanup, cfg, key, {
    seed,
    dataDir: storedDir,
    profileDir,
    phase: 'latency',
    label: '',
  });
  let latencyAnalyzed: PhaseResult[] = [];
  if (cfg.analyze) {
    log('first-page latency again after ANALYZE (what-if: the server does not run ANALYZE itself)');
    analyzeStore(storedDir);
    latencyAnalyzed = await latencyPages(cleanup, cfg, key, {
      seed,
      dataDir: storedDir,
      profileDir,
      phase: 'latency-analyzed',
      label: ', after ANALYZE',
    });
  }
  return { stream, seed: seed.result, latency, latencyAnalyzed };
}

/** The three first-page queries over the seeded store, against a fresh server on it. */
async function latencyPages(
  cleanup: Cleanup,
  cfg: BenchConfig,
  key: string,
  opts: { seed: SeedInfo; dataDir: string; profileDir: string | null; phase: string; label: string },
): Promise<PhaseResult[]> {
  const { seed } = opts;
  const n = cfg.storedCalls.toLocaleString('en-US');
  const page = (s: ChildServer, name: string, opNames: string[], expected = 100): Promise<PhaseResult> => {
    const query = { project_id: seed.project, filter: { op_names: opNames } };
    return latencyPhase(
      s,
      key,
      `First page (${n} stored${opts.label}), ${name}`,
      query,
      5,
      cfg.latencyRequests,
      expected,
    );
  };
  const rareCalls = Math.ceil(cfg.storedCalls / CALLS_PER_TRACE / RARE_EVERY);
  return withHeddle(
    cleanup,
    { dataDir: opts.dataDir, adminKey: key, profileDir: opts.profileDir, phase: opts.phase },
    async (s) => [
      await page(s, 'common op, exact ref (40 % of calls)', [seed.ops.chat]),
      await page(s, 'op version wildcard `:*` (20 %, 3 versions)', [`weave:///${seed.project}/op/run_agent:*`]),
      await page(s, 'rare op, exact ref (0.1 %)', [seed.ops.rare], Math.min(100, rareCalls)),
    ],
  );
}

/** Gathers planner statistics (sqlite_stat1/stat4) on the stopped server's database. */
function analyzeStore(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'heddle.sqlite'));
  try {
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  const cleanup = new Cleanup();
  const stop = (signal: string): void => {
    log(`${signal}: cleaning up`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const machine = machineInfo();
  const key = randomBytes(20).toString('hex');
  const profileDir = cfg.cpuProfile
    ? path.join(REPO_ROOT, 'bench', 'results', `prof-${machine.date!.replace(/[:.]/g, '-')}`)
    : null;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  try {
    const dataDir = cleanup.tempDir('heddle-bench-ingest-');
    const writes = await writePhases(cleanup, cfg, key, dataDir, profileDir);
    const reads = await readPhases(
      cleanup,
      cfg,
      key,
      { dataDir, project: writes.project, calls: writes.ingested },
      profileDir,
    );
    const summary: Summary = { ...writes, ...reads };
    const phases: PhaseResult[] = [
      ...[writes.rawStore, writes.bareHttp, writes.bareFastify, writes.batch, writes.unbatched],
      ...[reads.stream, reads.seed, ...reads.latency, ...reads.latencyAnalyzed],
    ];
    const header = Object.entries({ ...machine, config: JSON.stringify(cfg) })
      .map(([k, v]) => `- ${k}: ${v}`)
      .join('\n');
    const markdown = `# Ingest benchmark\n\n${header}\n\n${summaryTable(summary)}\n\n${phaseTable(phases)}\n${profileDir ? `\nCPU profiles: ${profileDir}\n` : ''}`;
    const file = writeResults(markdown, { machine, config: cfg, phases });
    if (profileDir)
      log(
        `profile summaries: ${summariseDir(profileDir, profileWindows)
          .map((f) => path.relative(REPO_ROOT, f))
          .join(', ')}`,
      );
    process.stdout.write(`${markdown}\nResults written to ${path.relative(REPO_ROOT, file)}\n`);
  } finally {
    await cleanup.run();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
