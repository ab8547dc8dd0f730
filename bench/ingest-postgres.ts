import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { ensurePostgres } from '../test/helpers/postgres-server.js';
import { batchPhase, buildWorkload, type Workload } from './lib/ingest-phases.js';
import { LoadClient, runPool } from './lib/load.js';
import { copyCalls, copyChunks } from './lib/pg-copy.js';
import { fmtRate, measure, type PhaseResult } from './lib/measure.js';
import { REPO_ROOT, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo, phaseTable } from './lib/report.js';

/**
 * Batch ingest on PostgreSQL against COPY of the same rows (npm run bench:ingest runs it after
 * bench/ingest.ts). Every phase writes the same calls into a freshly migrated database of its own
 * (same table, same indexes): COPY FROM STDIN of the finished rows on one connection, the
 * PostgreSQL store's calls.write in process, and a Heddle server on HEDDLE_DATABASE_URL taking
 * /call/upsert_batch over loopback. COPY runs before and after the others, since the machine may
 * be shared; the target compares Heddle with the mean of the two. Sizes follow BENCH_SCALE and
 * the BENCH_* knobs of bench/ingest.ts (see BENCHMARKS.md).
 */

const log = (message: string): void => {
  process.stderr.write(`[bench-pg ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
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
    batchCalls: envInt('BENCH_BATCH_CALLS', 100),
    ingestCalls: envInt('BENCH_INGEST_CALLS', 100_000 * scale),
    warmupBatches: envInt('BENCH_WARMUP_BATCHES', 20),
    concurrency: envInt('BENCH_CONCURRENCY', 4),
  };
}

/** Databases this run created, dropped at the end. */
class Databases {
  readonly #names: string[] = [];
  constructor(private readonly adminUrl: string) {}

  async fresh(label: string): Promise<string> {
    const name = `heddle_bench_${Date.now().toString(36)}_${label}_${randomBytes(3).toString('hex')}`;
    await this.#admin((c) =>
      c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`),
    );
    this.#names.push(name);
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    const store = new PostgresStore({ url: url.toString() });
    await store.migrate();
    await store.close();
    return url.toString();
  }

  async dropAll(): Promise<void> {
    for (const name of this.#names.splice(0))
      await this.#admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
  }

  async #admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }
}

async function countRows(url: string, project: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM calls WHERE project_id = $1 AND started_at IS NOT NULL',
      [project],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function copyPhase(dbs: Databases, work: Workload, label: string): Promise<PhaseResult> {
  const url = await dbs.fresh('copy');
  const parts = work.batches.flatMap((b) => b.parts);
  const chunks = copyChunks(parts);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await measure(
      `COPY calls FROM STDIN, the same rows finished (${label})`,
      work.calls,
      null,
      async () => {
        await copyCalls(client, chunks);
      },
    );
    const stored = await countRows(url, work.project);
    if (stored !== work.calls) throw new Error(`COPY stored ${stored} calls, expected ${work.calls}`);
    return result;
  } finally {
    await client.end();
  }
}

async function rawStorePhase(
  dbs: Databases,
  work: Workload,
  warmup: Workload,
  concurrency: number,
): Promise<PhaseResult> {
  const store = new PostgresStore({ url: await dbs.fresh('raw') });
  try {
    await runPool(warmup.batches.length, concurrency, (i) => store.calls.write(warmup.batches[i]!.parts));
    return await measure('PostgreSQL store calls.write in process (same parts)', work.calls, null, () =>
      runPool(work.batches.length, concurrency, (i) => store.calls.write(work.batches[i]!.parts)),
    );
  } finally {
    await store.close();
  }
}

async function heddlePhase(
  dbs: Databases,
  work: Workload,
  warmup: Workload,
  cfg: ReturnType<typeof loadConfig>,
): Promise<PhaseResult> {
  const url = await dbs.fresh('heddle');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-pg-'));
  const key = randomBytes(20).toString('hex');
  // startHeddle passes this process's environment on: the server runs on the phase's database
  process.env.HEDDLE_DATABASE_URL = url;
  let server: ChildServer | null = null;
  try {
    server = await startHeddle({ dataDir, adminKey: key });
    const result = await batchPhase(
      `Heddle /call/upsert_batch on PostgreSQL (${cfg.batchCalls} calls per request)`,
      server,
      key,
      work,
      warmup,
      cfg.concurrency,
    );
    const client = new LoadClient(server.url, key, 1);
    const reply = await client.postOk('/calls/query_stats', JSON.stringify({ project_id: work.project }), true);
    client.close();
    const stored = (JSON.parse(reply.text!) as { count: number }).count;
    if (stored !== work.calls)
      throw new Error(`after batch ingest the project holds ${stored} calls, expected ${work.calls}`);
    return result;
  } finally {
    delete process.env.HEDDLE_DATABASE_URL;
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function summary(copies: PhaseResult[], raw: PhaseResult, heddle: PhaseResult, bytesPerCall: number): string {
  const copyRate = copies.reduce((sum, p) => sum + p.perSecond, 0) / copies.length;
  const share = (100 * heddle.perSecond) / copyRate;
  return [
    '| Measure | Result | Target |',
    '|---|---:|---|',
    `| COPY of the finished rows, mean of ${copies.length} runs (calls/s) | ${fmtRate(copyRate)} (${copies.map((p) => fmtRate(p.perSecond)).join(', ')}) | |`,
    `| PostgreSQL store calls.write in process (calls/s) | ${fmtRate(raw.perSecond)} | |`,
    `| **Heddle /call/upsert_batch on PostgreSQL** (calls/s, ${Math.round(bytesPerCall)} B/call) | ${fmtRate(heddle.perSecond)} | |`,
    `| Heddle batch ingest as % of COPY | ${share.toFixed(0)} % | ≥ 30 %: ${share >= 30 ? 'met' : '**not met**'} |`,
  ].join('\n');
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  const adminUrl = await ensurePostgres();
  if (adminUrl === null)
    throw new Error('PostgreSQL is not available (set HEDDLE_TEST_POSTGRES_URL or install postgresql)');
  const dbs = new Databases(adminUrl);
  const stop = (signal: string): void => {
    log(`${signal}: dropping the benchmark databases`);
    void dbs.dropAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const machine = machineInfo();
  try {
    log(`building workload: ${cfg.ingestCalls} calls in batches of ${cfg.batchCalls}`);
    const work = buildWorkload('bench/ingest', cfg.ingestCalls, cfg.batchCalls);
    const warmup = buildWorkload('bench/warmup', cfg.warmupBatches * cfg.batchCalls, cfg.batchCalls);
    log('COPY phase (1 of 2)');
    const copyBefore = await copyPhase(dbs, work, 'before');
    log('PostgreSQL store phase');
    const raw = await rawStorePhase(dbs, work, warmup, cfg.concurrency);
    log('Heddle /call/upsert_batch phase');
    const heddle = await heddlePhase(dbs, work, warmup, cfg);
    log('COPY phase (2 of 2)');
    const copyAfter = await copyPhase(dbs, work, 'after');
    const header = Object.entries({ ...machine, postgres: await serverVersion(adminUrl), config: JSON.stringify(cfg) })
      .map(([k, v]) => `- ${k}: ${v}`)
      .join('\n');
    const markdown = `# Ingest benchmark on PostgreSQL\n\n${header}\n\n${summary([copyBefore, copyAfter], raw, heddle, work.bytesPerCall)}\n\n${phaseTable([copyBefore, raw, heddle, copyAfter])}\n`;
    const dir = path.join(REPO_ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = machine.date!.replace(/[:.]/g, '-');
    const file = path.join(dir, `ingest-postgres-${stamp}.md`);
    fs.writeFileSync(file, markdown);
    fs.writeFileSync(
      path.join(dir, `ingest-postgres-${stamp}.json`),
      `${JSON.stringify({ machine, config: cfg, phases: [copyBefore, raw, heddle, copyAfter] }, null, 2)}\n`,
    );
    process.stdout.write(`${markdown}\nResults written to ${path.relative(REPO_ROOT, file)}\n`);
  } finally {
    await dbs.dropAll();
  }
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
  } finally {
    await client.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
