/**
 * An idle node (issue 35): starts the compiled server (`node dist/main.js serve`; build it first with
 * `npm run build:server`) on a fresh SQLite store, writes one call so every background loop has a
 * project to look at, waits BENCH_IDLE_SETTLE_S (20) seconds, then measures over BENCH_IDLE_S seconds
 * (default 180) with no request at all: the CPU the process used (share of one core; goal ≤ 1 %) and
 * how much the data directory grew (the database, its WAL and shared memory, everything else;
 * goal 0 bytes). Writes bench/results/idle-<stamp>.{md,json}.
 *
 * BENCH_IDLE_STORE=postgres runs the node on a fresh PostgreSQL database instead (the server of
 * test/helpers/postgres-server.ts) and reports the database's size and what the node made it do
 * meanwhile (`pg_stat_database`: transactions, rows inserted, updated and deleted).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshPostgresDatabase, type BenchDatabase } from './lib/bench-database.js';
import { startHeddle } from './lib/processes.js';
import { machineInfo, writeResults } from './lib/report.js';

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 180);
const SETTLE_S = Number(process.env.BENCH_IDLE_SETTLE_S ?? 20);

/** Every file under `dir` with its size and modification time. */
function files(dir: string): Map<string, { size: number; mtimeMs: number }> {
  const out = new Map<string, { size: number; mtimeMs: number }>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const stat = fs.statSync(file);
    out.set(path.relative(dir, file), { size: stat.size, mtimeMs: stat.mtimeMs });
  }
  return out;
}

const sleep = (s: number): Promise<void> => new Promise((r) => setTimeout(r, s * 1000));
const STORE = process.env.BENCH_IDLE_STORE ?? 'sqlite';

interface DatabaseUse {
  bytes: number;
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
}

/** The size of the benchmark's database and what its server counted for it. */
async function databaseUse(db: BenchDatabase): Promise<DatabaseUse> {
  const [row] = await db.adminQuery<Record<string, string>>(
    `SELECT pg_database_size('${db.name}') AS bytes, xact_commit AS commits, tup_inserted AS inserted,
       tup_updated AS updated, tup_deleted AS deleted FROM pg_stat_database WHERE datname = '${db.name}'`,
  );
  return {
    bytes: Number(row!.bytes),
    commits: Number(row!.commits),
    inserted: Number(row!.inserted),
    updated: Number(row!.updated),
    deleted: Number(row!.deleted),
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-idle-'));
const key = randomBytes(20).toString('hex');
const db = STORE === 'postgres' ? await freshPostgresDatabase('idle') : null;
if (STORE === 'postgres' && db === null) throw new Error('BENCH_IDLE_STORE=postgres: no PostgreSQL could be had');
process.env.BENCH_SERVER = 'dist';
const server = await startHeddle({ dataDir, adminKey: key, env: db ? { HEDDLE_DATABASE_URL: db.url } : {} });
try {
  const res = await fetch(`${server.url}/call/start`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      start: {
        project_id: 'idle/idle',
        id: 'one',
        trace_id: 'one',
        op_name: 'idle',
        started_at: new Date().toISOString(),
        attributes: {},
        inputs: {},
      },
    }),
  });
  if (res.status !== 200) throw new Error(`call/start: ${res.status} ${await res.text()}`);
  await sleep(SETTLE_S);
  const before = files(dataDir);
  const dbBefore = db ? await databaseUse(db) : undefined;
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  await sleep(IDLE_S);
  const seconds = (performance.now() - started) / 1000;
  const cpu = server.cpuSeconds() - cpuBefore;
  const after = files(dataDir);
  const dbAfter = db ? await databaseUse(db) : undefined;
  const changed: string[] = [];
  let grown = 0;
  for (const [name, a] of after) {
    const b = before.get(name);
    grown += a.size - (b?.size ?? 0);
    if (!b || b.size !== a.size || b.mtimeMs !== a.mtimeMs) changed.push(`${name} (${b?.size ?? 0} → ${a.size} B)`);
  }
  const share = cpu / seconds;
  const database =
    dbBefore && dbAfter
      ? {
          grown: dbAfter.bytes - dbBefore.bytes,
          commits: dbAfter.commits - dbBefore.commits,
          inserted: dbAfter.inserted - dbBefore.inserted,
          updated: dbAfter.updated - dbBefore.updated,
          deleted: dbAfter.deleted - dbBefore.deleted,
        }
      : null;
  const md = [
    `# Idle node (compiled server, ${db ? 'PostgreSQL' : 'SQLite'})`,
    '',
    '| What | Result | Goal |',
    '|---|---|---|',
    `| CPU over ${seconds.toFixed(0)} s idle | ${cpu.toFixed(2)} s: ${(share * 100).toFixed(2)} % of one core | ≤ 1 % |`,
    `| Data directory growth | ${grown} bytes | 0 |`,
    `| Files written meanwhile | ${changed.length === 0 ? 'none' : changed.join(', ')} | none |`,
    ...(database
      ? [
          `| Database size growth (pg_database_size) | ${database.grown} bytes | 0 |`,
          `| What the node made the database do (pg_stat_database) | ${database.commits} transactions; rows ${database.inserted} inserted, ${database.updated} updated, ${database.deleted} deleted | |`,
        ]
      : []),
    '',
    `Machine: ${JSON.stringify(machineInfo())}`,
    '',
  ].join('\n');
  process.stdout.write(md);
  writeResults(md, { store: STORE, seconds, cpu, share, grown, changed, database }, 'idle');
} finally {
  await server.stop();
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
