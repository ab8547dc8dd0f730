import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCitusDatabase, startCitusCluster, withDatabase } from '../test/helpers/citus.js';
import { runDbDistribute } from '../test/helpers/citus-database.js';
import { ensurePostgres } from '../test/helpers/postgres-server.js';
import pg from 'pg';
import { LoadClient, quantile } from './lib/load.js';
import { startHeddle } from './lib/processes.js';
import { machineInfo } from './lib/report.js';

/**
 * Heddle on Citus against one PostgreSQL (`npx tsx bench/citus.ts`, docs/scaling.md): a Citus
 * cluster (a coordinator and two workers on loopback, test/helpers/citus.ts) and a plain database
 * on the local PostgreSQL, one Heddle node on each. Ingests BENCH_CALLS calls (batches of 500
 * starts and ends, 2 in flight) into one of BENCH_PROJECTS projects each, then times BENCH_REPEAT
 * runs of a project's first page of traces, a trace view and a `$contains` page. Every node of the
 * cluster shares this machine's cores, so the figures are the cost of the coordinator's routing,
 * not the capacity more machines would add. Reports each figure on both and the ratio.
 */

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 4);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor'];

function batch(project: string, n: number, offset: number): string {
  const items = [];
  for (let i = 0; i < n; i += 1) {
    const id = randomBytes(8).toString('hex');
    const trace = `trace-${Math.floor((offset + i) / 5)}`;
    const start = {
      project_id: project,
      id,
      trace_id: trace,
      parent_id: (offset + i) % 5 === 0 ? null : `root-${trace}`,
      op_name: 'chat',
      started_at: new Date(Date.now() - (CALLS - offset - i) * 1000).toISOString(),
      attributes: {},
      inputs: { prompt: `${WORDS[(offset + i) % WORDS.length]} ${'x'.repeat(200)} ${offset + i}` },
    };
    const end = { project_id: project, id, ended_at: new Date().toISOString(), output: 'y'.repeat(200), summary: {} };
    items.push({ mode: 'start', req: { start } }, { mode: 'end', req: { end } });
  }
  return JSON.stringify({ batch: items });
}

interface Row {
  store: string;
  ingestPerSecond: number;
  firstPage: number;
  traceView: number;
  contains: number;
}

async function median(client: LoadClient, url: string, body: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i += 1) {
    const started = performance.now();
    await client.postOk(url, body);
    times.push(performance.now() - started);
  }
  return quantile(times, 0.5);
}

async function measure(store: string, databaseUrl: string): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-citus-'));
  const adminKey = randomBytes(20).toString('hex');
  const server = await startHeddle({ dataDir, adminKey, env: { HEDDLE_DATABASE_URL: databaseUrl } });
  try {
    const client = new LoadClient(server.url, adminKey, 4);
    const projects = Array.from({ length: PROJECTS }, (_, i) => `bench/citus-${i}`);
    const perProject = Math.ceil(CALLS / PROJECTS / 500);
    const started = performance.now();
    await Promise.all(
      [0, 1].map(async (lane) => {
        for (let k = lane; k < perProject * PROJECTS; k += 2) {
          const project = projects[k % PROJECTS]!;
          await client.postOk('/call/upsert_batch', batch(project, 500, Math.floor(k / PROJECTS) * 500));
        }
      }),
    );
    const ingestPerSecond = (perProject * PROJECTS * 500) / ((performance.now() - started) / 1000);
    const project = projects[0]!;
    const row: Row = {
      store,
      ingestPerSecond,
      firstPage: await median(
        client,
        '/calls/stream_query',
        JSON.stringify({
          project_id: project,
          filter: { trace_roots_only: true },
          sort_by: [{ field: 'started_at', direction: 'desc' }],
          limit: 50,
        }),
      ),
      traceView: await median(
        client,
        '/calls/stream_query',
        JSON.stringify({ project_id: project, filter: { trace_ids: ['trace-7'] }, limit: 1000 }),
      ),
      contains: await median(
        client,
        '/calls/stream_query',
        JSON.stringify({
          project_id: project,
          query: { $expr: { $contains: { input: { $getField: 'inputs.prompt' }, substr: { $literal: 'garnet' } } } },
          limit: 50,
        }),
      ),
    };
    client.close();
    return row;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const admin = await ensurePostgres();
  if (admin === null) throw new Error('PostgreSQL is not available');
  const name = `heddle_bench_${Date.now().toString(36)}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  try {
    rows.push(await measure('PostgreSQL', withDatabase(admin, name)));
  } finally {
    await adminClient.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await adminClient.end();
  }
  const cluster = await startCitusCluster();
  try {
    const name = `heddle_bench_${Date.now().toString(36)}`;
    await createCitusDatabase(cluster.url, name);
    const url = withDatabase(cluster.url, name);
    await runDbDistribute(url);
    rows.push(await measure('Citus (coordinator + 2 workers)', url));
  } finally {
    await cluster.stop();
  }
  const [plain, citus] = rows as [Row, Row];
  const info = machineInfo();
  const lines = [
    `Citus against one PostgreSQL: ${CALLS} calls in ${PROJECTS} projects, medians of ${REPEAT} runs; ${info.cpus}`,
    '',
    '| Store | Batch ingest (calls/s) | First page (ms) | Trace view (ms) | $contains page (ms) |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.store} | ${r.ingestPerSecond.toFixed(0)} | ${r.firstPage.toFixed(1)} | ${r.traceView.toFixed(1)} | ${r.contains.toFixed(1)} |`,
    ),
    `| Citus / PostgreSQL | ${(citus.ingestPerSecond / plain.ingestPerSecond).toFixed(2)}× | ${(citus.firstPage / plain.firstPage).toFixed(2)}× | ${(citus.traceView / plain.traceView).toFixed(2)}× | ${(citus.contains / plain.contains).toFixed(2)}× |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
