import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { summariseDir, type ProfileWindow } from './lib/cpu-profile.js';
import { LoadClient } from './lib/load.js';
import { fmtRate, measuredSpans, type PhaseResult } from './lib/measure.js';
import { OTLP_PATH_HEDDLE, OTLP_PATH_PHOENIX, rawStorePhase, receiverPhase } from './lib/otel-phases.js';
import { buildOtlpWorkload, type OtlpWorkload } from './lib/otel-workload.js';
import { ensurePhoenix, PHOENIX_VERSION, phoenixRecordCount, phoenixStoredSpans, startPhoenix } from './lib/phoenix.js';
import { REPO_ROOT, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo, phaseTable } from './lib/report.js';

/**
 * The OTel ingest benchmark (issue 6): one fixed OTLP protobuf workload, written (1) as rows straight
 * into the store, (2) to Heddle's /otel/v1/traces and (3) to Arize Phoenix's /v1/traces, the
 * receivers in their own processes on loopback, driven by the same load generator in the same run.
 * A receiver's rate counts until every span is stored and queryable. See BENCHMARKS.md.
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
  return {
    scale,
    spans: envInt('BENCH_OTEL_SPANS', 20_000 * scale),
    spansPerRequest: envInt('BENCH_OTEL_SPANS_PER_REQUEST', 250),
    concurrency: envInt('BENCH_OTEL_CONCURRENCY', 4),
    warmupRequests: envInt('BENCH_OTEL_WARMUP_REQUESTS', 4),
    phoenix: process.env.BENCH_OTEL_PHOENIX !== '0',
    cpuProfile: process.env.BENCH_CPU_PROF === '1',
  };
}
type Config = ReturnType<typeof loadConfig>;

const log = (message: string): void => {
  process.stderr.write(`[bench-otel ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};
const loadAvg = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Servers and temp dirs of the run, undone on exit (also on Ctrl-C or failure). */
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

async function heddleCount(client: LoadClient, projects: string[]): Promise<number> {
  let total = 0;
  for (const project_id of projects) {
    const reply = await client.postOk('/calls/query_stats', JSON.stringify({ project_id }), true);
    total += (JSON.parse(reply.text!) as { count: number }).count;
  }
  return total;
}

async function heddlePhase(
  cleanup: Cleanup,
  cfg: Config,
  work: OtlpWorkload,
  warmup: OtlpWorkload,
  profileDir: string | null,
) {
  const key = randomBytes(20).toString('hex');
  const dataDir = cleanup.tempDir('heddle-bench-otel-');
  const server = await startHeddle({
    dataDir,
    adminKey: key,
    cpuProfileDir: profileDir ? path.join(profileDir, 'heddle') : undefined,
  });
  cleanup.servers.add(server);
  const counter = new LoadClient(server.url, key, 1);
  let window: ProfileWindow | null = null;
  try {
    const storedSpans = () => heddleCount(counter, [warmup.project, work.project]);
    const phase = await receiverPhase(
      { name: 'Heddle', server, apiKey: key, urlPath: OTLP_PATH_HEDDLE, storedSpans },
      work,
      warmup,
      cfg.concurrency,
    );
    return { phase, window: () => window };
  } finally {
    counter.close();
    await server.stop();
    cleanup.servers.delete(server);
    const spans = measuredSpans.filter((m) => m.pid === server.pid);
    const exitedAt = server.exitedAt();
    if (spans.length > 0 && exitedAt !== null)
      window = { from: spans[0]!.from, to: spans[spans.length - 1]!.to, exitedAt };
  }
}

async function phoenixPhase(
  cleanup: Cleanup,
  cfg: Config,
  work: OtlpWorkload,
  warmup: OtlpWorkload,
): Promise<PhaseResult> {
  const launcher = await ensurePhoenix(log);
  const workDir = cleanup.tempDir('heddle-bench-phoenix-');
  log(`starting Phoenix ${PHOENIX_VERSION} (working dir ${workDir})`);
  const server = await startPhoenix(launcher, workDir);
  cleanup.servers.add(server);
  const stored = phoenixStoredSpans(server.dbFile);
  try {
    log('Phoenix phase');
    const phase = await receiverPhase(
      { name: 'Phoenix', server, apiKey: null, urlPath: OTLP_PATH_PHOENIX, storedSpans: stored.count },
      work,
      warmup,
      cfg.concurrency,
    );
    // the same spans through Phoenix's own API (after the clock): its project's span count
    const viaApi = await phoenixRecordCount(server.url, work.phoenixProject);
    if (viaApi !== work.spans)
      throw new Error(`Phoenix GraphQL reports ${viaApi} spans in ${work.phoenixProject}, expected ${work.spans}`);
    return { ...phase, extra: { ...phase.extra, graphql_record_count: viaApi } };
  } finally {
    stored.close();
    await server.stop();
    cleanup.servers.delete(server);
  }
}

function summary(
  cfg: Config,
  work: OtlpWorkload,
  raw: PhaseResult,
  heddle: PhaseResult,
  phoenix: PhaseResult | null,
): string {
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
  const cpuUs = (p: PhaseResult): string => fmtRate(((p.serverCpu ?? p.clientCpu) * 1e6) / p.units);
  const rows = [
    '| Measure | Result | Target |',
    '|---|---:|---|',
    `| Raw store, calls.write of the mapped spans (rows/s) | ${fmtRate(raw.perSecond)} | |`,
    `| **Heddle** /otel/v1/traces, protobuf (spans/s, until stored) | ${fmtRate(heddle.perSecond)} | |`,
    `| Heddle / raw store | ${((100 * heddle.perSecond) / raw.perSecond).toFixed(0)} % | |`,
    `| CPU µs per span: raw store / Heddle server | ${cpuUs(raw)} / ${cpuUs(heddle)} | |`,
  ];
  if (phoenix) {
    const r = heddle.perSecond / phoenix.perSecond;
    rows.push(
      `| **Phoenix ${PHOENIX_VERSION}** /v1/traces, protobuf (spans/s, until stored) | ${fmtRate(phoenix.perSecond)} | |`,
      `| CPU µs per span: Phoenix server | ${cpuUs(phoenix)} | |`,
      `| **Heddle / Phoenix** | ${ratio(heddle.perSecond, phoenix.perSecond)} | ≥ 10×: ${r >= 10 ? 'met' : '**not met**'} |`,
      `| Heddle / Phoenix, CPU per span | ${ratio(Number(cpuUs(phoenix).replace(/,/g, '')), Number(cpuUs(heddle).replace(/,/g, '')))} | |`,
    );
  }
  rows.push(
    `| Workload | ${work.spans.toLocaleString('en-US')} spans, ${work.bodies.length} requests of ${work.spansPerBody}, ${Math.round(work.bytesPerSpan)} B/span, ${cfg.concurrency} in flight | |`,
  );
  return rows.join('\n');
}

function writeResults(markdown: string, data: unknown): string {
  const dir = path.join(REPO_ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `otel-${stamp}.md`);
  fs.writeFileSync(file, markdown);
  fs.writeFileSync(path.join(dir, `otel-${stamp}.json`), `${JSON.stringify(data, null, 2)}\n`);
  return file;
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
  const profileDir = cfg.cpuProfile
    ? path.join(REPO_ROOT, 'bench', 'results', `prof-otel-${machine.date!.replace(/[:.]/g, '-')}`)
    : null;
  try {
    log(`building the workload: ${cfg.spans} spans in requests of ${cfg.spansPerRequest}`);
    const work = buildOtlpWorkload('otel', cfg.spans, cfg.spansPerRequest, 1);
    const warmup = buildOtlpWorkload('otel-warmup', cfg.warmupRequests * cfg.spansPerRequest, cfg.spansPerRequest, 2);
    log(`raw store phase (${Math.round(work.bytesPerSpan)} bytes per span on the wire)`);
    const raw = await rawStorePhase(work, warmup, cfg.concurrency);
    log('Heddle phase');
    const heddle = await heddlePhase(cleanup, cfg, work, warmup, profileDir);
    const phoenix = cfg.phoenix ? await phoenixPhase(cleanup, cfg, work, warmup) : null;
    const phases = [raw, heddle.phase, ...(phoenix ? [phoenix] : [])];
    const header = Object.entries({ ...machine, load_at_end: loadAvg(), config: JSON.stringify(cfg) })
      .map(([k, v]) => `- ${k}: ${v}`)
      .join('\n');
    const markdown = `# OTel ingest benchmark\n\n${header}\n\n${summary(cfg, work, raw, heddle.phase, phoenix)}\n\n${phaseTable(phases)}\n`;
    const file = writeResults(markdown, { machine: { ...machine, load_at_end: loadAvg() }, config: cfg, phases });
    const window = heddle.window();
    if (profileDir && window)
      log(`profile summary: ${summariseDir(profileDir, new Map([['heddle', window]])).join(', ')}`);
    process.stdout.write(`${markdown}\nResults written to ${path.relative(REPO_ROOT, file)}\n`);
  } finally {
    await cleanup.run();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
