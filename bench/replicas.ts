import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReplicaPair } from '../test/helpers/pg-replica-pair.js';
import { LoadClient, quantile } from './lib/load.js';
import { startHeddle } from './lib/processes.js';
import { machineInfo } from './lib/report.js';

/**
 * Read replicas under a mixed load (`npm run bench:replicas`, docs/scaling.md): one Heddle node on a
 * PostgreSQL primary with 0, 1 and 2 streaming replicas (made with pg_basebackup on loopback), the
 * same project of BENCH_CALLS seeded calls, then BENCH_SECONDS of ingest (batches of 100 calls,
 * 2 in flight) alongside queries (a filtered first page and a count, 8 in flight). Reports query
 * throughput and latency and the ingest rate for each replica count. All servers share this
 * machine's cores, so the figures show the routing's cost and correctness under load, not the
 * capacity more machines would add.
 */

const SEED_CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const PROJECT = 'bench/replicas';
const OPS = ['chat', 'embed', 'rerank', 'tool'];

function batch(n: number): string {
  const items = [];
  for (let i = 0; i < n; i += 1) {
    const id = randomBytes(8).toString('hex');
    const op = OPS[i % OPS.length]!;
    const start = {
      project_id: PROJECT,
      id,
      trace_id: id,
      op_name: op,
      started_at: new Date().toISOString(),
      attributes: {},
      inputs: { user_id: `user-${i % 500}`, prompt: 'x'.repeat(400) },
    };
    const end = { project_id: PROJECT, id, ended_at: new Date().toISOString(), output: 'y'.repeat(400), summary: {} };
    items.push({ mode: 'start', req: { start } }, { mode: 'end', req: { end } });
  }
  return JSON.stringify({ batch: items });
}

interface Row {
  replicas: number;
  queries: number;
  queriesPerSecond: number;
  p50: number;
  p99: number;
  ingestPerSecond: number;
}

async function mixedLoad(url: string, key: string, replicas: number): Promise<Row> {
  const client = new LoadClient(url, key, 16);
  const deadline = Date.now() + SECONDS * 1000;
  let ingested = 0;
  const latencies: number[] = [];
  const page = JSON.stringify({
    project_id: PROJECT,
    filter: { op_names: [`weave:///${PROJECT}/op/chat:*`] },
    sort_by: [{ field: 'started_at', direction: 'desc' }],
    limit: 100,
  });
  const count = JSON.stringify({ project_id: PROJECT, filter: { trace_roots_only: true } });
  const writers = Array.from({ length: 2 }, async () => {
    while (Date.now() < deadline) {
      await client.postOk('/call/upsert_batch', batch(100));
      ingested += 100;
    }
  });
  const readers = Array.from({ length: 8 }, async (_, i) => {
    while (Date.now() < deadline) {
      const started = performance.now();
      await client.postOk(i % 2 === 0 ? '/calls/stream_query' : '/calls/query_stats', i % 2 === 0 ? page : count);
      latencies.push(performance.now() - started);
    }
  });
  await Promise.all([...writers, ...readers]);
  client.close();
  return {
    replicas,
    queries: latencies.length,
    queriesPerSecond: latencies.length / SECONDS,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    ingestPerSecond: ingested / SECONDS,
  };
}

async function main(): Promise<void> {
  const pair = await startReplicaPair({ replicas: 2 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-replicas-'));
  const adminKey = randomBytes(20).toString('hex');
  const rows: Row[] = [];
  try {
    for (const replicas of [0, 1, 2]) {
      const env: Record<string, string> = { HEDDLE_DATABASE_URL: pair.primaryUrl };
      if (replicas > 0) env.HEDDLE_DATABASE_READ_URLS = pair.replicaUrls.slice(0, replicas).join(',');
      const server = await startHeddle({ dataDir, adminKey, env });
      try {
        if (replicas === 0) {
          const seeder = new LoadClient(server.url, adminKey, 4);
          for (let n = 0; n < SEED_CALLS; n += 500) await seeder.postOk('/call/upsert_batch', batch(500));
          seeder.close();
        }
        rows.push(await mixedLoad(server.url, adminKey, replicas));
      } finally {
        await server.stop();
      }
    }
  } finally {
    await pair.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const info = machineInfo();
  const lines = [
    `Read replicas under mixed load: ${SEED_CALLS} seeded calls, ${SECONDS} s per run, one node; ${info.cpus}`,
    '',
    '| Replicas | Queries/s | Query p50 (ms) | Query p99 (ms) | Ingest (calls/s) |',
    '|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.replicas} | ${r.queriesPerSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.ingestPerSecond.toFixed(0)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
