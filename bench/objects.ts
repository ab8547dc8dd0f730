import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../src/store/types.js';
import { ensurePostgres } from '../test/helpers/postgres-server.js';
import { summariseDir, type ProfileWindow } from './lib/cpu-profile.js';
import { fileRoundTrip, fileThroughStore, type RoundTrip } from './lib/file-phases.js';
import { measuredSpans, type PhaseResult } from './lib/measure.js';
import { summaryTable, writeObjectsResults, type BackendResult } from './lib/objects-report.js';
import { REPO_ROOT, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo, phaseTable } from './lib/report.js';
import { buildTableOverHttp, readTableFromStore, streamTable, type BuiltTable } from './lib/table-phases.js';

/**
 * The objects benchmark (issue 4): /table/query_stream over a large dataset-like table against
 * reading the same rows from the store in process, and a large file round trip through
 * /file/create and /file/content with the server's resident memory. Runs on SQLite and, when a
 * PostgreSQL server can be had, on PostgreSQL. Knobs: BENCH_SCALE, BENCH_TABLE_ROWS,
 * BENCH_TABLE_BATCH_ROWS, BENCH_OBJECTS_RUNS, BENCH_FILE_MIB, BENCH_SMALL_FILE_MIB,
 * BENCH_OBJECTS_STORES (sqlite,postgres), BENCH_CPU_PROF (see BENCHMARKS.md).
 */

const log = (message: string): void => {
  process.stderr.write(`[bench-objects ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

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
    tableRows: envInt('BENCH_TABLE_ROWS', 100_000 * scale),
    batchRows: envInt('BENCH_TABLE_BATCH_ROWS', 10_000),
    runs: envInt('BENCH_OBJECTS_RUNS', 3),
    fileMiB: envInt('BENCH_FILE_MIB', 50),
    smallFileMiB: envInt('BENCH_SMALL_FILE_MIB', 5),
    stores: (process.env.BENCH_OBJECTS_STORES ?? 'sqlite,postgres').split(',').filter(Boolean),
    cpuProfile: process.env.BENCH_CPU_PROF === '1',
  };
}
type Config = ReturnType<typeof loadConfig>;

/** Where one store's data lives, how to open it in process, and what to undo at the end. */
interface StoreSetup {
  name: string;
  dataDir: string;
  databaseUrl: string | null;
  open(): TraceStore;
  dispose(): Promise<void>;
}

async function sqliteSetup(): Promise<StoreSetup> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-objects-'));
  return {
    name: 'SQLite',
    dataDir,
    databaseUrl: null,
    open: () => new SqliteStore({ file: path.join(dataDir, 'heddle.sqlite') }),
    dispose: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function postgresSetup(adminUrl: string): Promise<StoreSetup> {
  const name = `heddle_bench_objects_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-objects-pg-'));
  return {
    name: 'PostgreSQL',
    dataDir,
    databaseUrl: url.toString(),
    open: () => new PostgresStore({ url: url.toString() }),
    dispose: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    },
  };
}

/** Starts Heddle on the setup's store (HEDDLE_DATABASE_URL is passed on through this process's environment). */
async function startOn(setup: StoreSetup, key: string, profileDir?: string): Promise<ChildServer> {
  if (setup.databaseUrl) process.env.HEDDLE_DATABASE_URL = setup.databaseUrl;
  else delete process.env.HEDDLE_DATABASE_URL;
  try {
    return await startHeddle({ dataDir: setup.dataDir, adminKey: key, cpuProfileDir: profileDir });
  } finally {
    delete process.env.HEDDLE_DATABASE_URL;
  }
}

async function withServer<T>(
  setup: StoreSetup,
  key: string,
  profileDir: string | undefined,
  fn: (s: ChildServer) => Promise<T>,
): Promise<{ value: T; server: ChildServer }> {
  const server = await startOn(setup, key, profileDir);
  try {
    return { value: await fn(server), server };
  } finally {
    await server.stop();
  }
}

/** Streams and store reads alternate, run by run, so both see the same machine load. */
async function tableReads(
  server: ChildServer,
  key: string,
  store: TraceStore,
  project: string,
  table: BuiltTable,
  runs: number,
) {
  log('warm-up: one stream and one store read');
  await streamTable(server, key, project, table, 0);
  await readTableFromStore(store, project, table, 0, false);
  const streams: PhaseResult[] = [];
  const storeReads: PhaseResult[] = [];
  const storeLines: PhaseResult[] = [];
  for (let run = 1; run <= runs; run += 1) {
    streams.push(await streamTable(server, key, project, table, run));
    storeReads.push(await readTableFromStore(store, project, table, run, false));
    storeLines.push(await readTableFromStore(store, project, table, run, true));
    log(
      `run ${run}: stream ${Math.round(streams.at(-1)!.perSecond)} rows/s, store ${Math.round(storeReads.at(-1)!.perSecond)} rows/s`,
    );
  }
  return { streams, storeReads, storeLines };
}

async function fileTrips(server: ChildServer, key: string, store: TraceStore, project: string, cfg: Config) {
  log('warm-up: 1 MiB file round trip');
  await fileRoundTrip(server, key, project, 1, 0);
  const smallFile = await fileRoundTrip(server, key, project, cfg.smallFileMiB, 0);
  const files: RoundTrip[] = [];
  const storeFiles: RoundTrip[] = [];
  for (let run = 1; run <= cfg.runs; run += 1) {
    files.push(await fileRoundTrip(server, key, project, cfg.fileMiB, run));
    storeFiles.push(await fileThroughStore(store, project, cfg.fileMiB, run));
    log(
      `run ${run}: upload ${files.at(-1)!.upload.perSecond.toFixed(1)} MiB/s, download ${files.at(-1)!.download.perSecond.toFixed(1)} MiB/s`,
    );
  }
  return { smallFile, files, storeFiles };
}

async function runStore(setup: StoreSetup, cfg: Config, profileRoot: string | null): Promise<BackendResult> {
  const key = randomBytes(20).toString('hex');
  const project = 'bench/objects';
  log(`${setup.name}: building a ${cfg.tableRows}-row table over HTTP`);
  const built = await withServer(setup, key, undefined, (s) =>
    buildTableOverHttp(s, key, project, cfg.tableRows, cfg.batchRows),
  );
  const table = built.value;
  const store = setup.open();
  const profileDir = profileRoot ? path.join(profileRoot, setup.name.toLowerCase()) : undefined;
  try {
    log(`${setup.name}: streaming (fresh server)`);
    const reads = await withServer(setup, key, profileDir, (s) => tableReads(s, key, store, project, table, cfg.runs));
    if (profileRoot && profileDir)
      summariseProfile(profileRoot, setup.name.toLowerCase(), reads.server, reads.value.streams);
    // files on a fresh server too: a heap grown by the streams would hide what an upload allocates
    log(`${setup.name}: files (fresh server)`);
    const files = await withServer(setup, key, undefined, (s) => fileTrips(s, key, store, project, cfg));
    return {
      backend: setup.name,
      rows: table.rows,
      rowBytes: table.rowBytes,
      build: table.result,
      ...reads.value,
      ...files.value,
    };
  } finally {
    await store.close();
  }
}

/** Per store, the span of the streaming server's life that was measured (to cut its CPU profile). */
const profileWindows = new Map<string, ProfileWindow>();

/** Writes `<store>.txt`: the server's profile cut to the measured stream runs. */
function summariseProfile(root: string, phase: string, server: ChildServer, streams: PhaseResult[]): void {
  const spans = measuredSpans.filter((m) => m.pid === server.pid).slice(1, 1 + streams.length);
  const exitedAt = server.exitedAt();
  if (spans.length === 0 || exitedAt === null) return;
  const window: ProfileWindow = {
    from: Math.min(...spans.map((m) => m.from)),
    to: Math.max(...spans.map((m) => m.to)),
    exitedAt,
  };
  profileWindows.set(phase, window);
  const written = summariseDir(root, profileWindows);
  log(`profile summaries: ${written.map((f) => path.relative(REPO_ROOT, f)).join(', ')}`);
}

function report(results: BackendResult[], machine: Record<string, string>, cfg: Config): string {
  const header = Object.entries({ ...machine, config: JSON.stringify(cfg) })
    .map(([k, v]) => `- ${k}: ${v}`)
    .join('\n');
  const sections = results.map((r) => {
    const phases = [r.build, ...r.streams, ...r.storeReads, ...r.storeLines, r.smallFile.upload, r.smallFile.download];
    phases.push(
      ...r.files.flatMap((f) => [f.upload, f.download]),
      ...r.storeFiles.flatMap((f) => [f.upload, f.download]),
    );
    return `## ${r.backend}\n\n${summaryTable(r)}\n\n${phaseTable(phases)}`;
  });
  return `# Objects benchmark\n\n${header}\n\n${sections.join('\n\n')}\n`;
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  const machine = machineInfo();
  const profileRoot = cfg.cpuProfile
    ? path.join(REPO_ROOT, 'bench', 'results', `prof-objects-${machine.date!.replace(/[:.]/g, '-')}`)
    : null;
  const setups: StoreSetup[] = [];
  const cleanup = async (): Promise<void> => {
    for (const setup of setups.splice(0)) await setup.dispose();
  };
  process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  process.on('SIGTERM', () => void cleanup().finally(() => process.exit(130)));
  const results: BackendResult[] = [];
  try {
    for (const kind of cfg.stores) {
      let setup: StoreSetup;
      if (kind === 'postgres') {
        const adminUrl = await ensurePostgres();
        if (adminUrl === null) {
          log('PostgreSQL is not available: skipping that store');
          continue;
        }
        setup = await postgresSetup(adminUrl);
      } else setup = await sqliteSetup();
      setups.push(setup);
      results.push(await runStore(setup, cfg, profileRoot));
      await setup.dispose();
      setups.splice(setups.indexOf(setup), 1);
    }
    const markdown = report(
      results,
      {
        ...machine,
        load_at_end: os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' '),
      },
      cfg,
    );
    const file = writeObjectsResults(markdown, { machine, config: cfg, results });
    process.stdout.write(`${markdown}\nResults written to ${path.relative(REPO_ROOT, file)}\n`);
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
