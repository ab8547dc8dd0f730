import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { CallPart, TraceStore } from '../src/store/types.js';
import pg from 'pg';
import { ensurePostgres } from '../test/helpers/postgres-server.js';

/**
 * Project deletion at scale (docs/export.md "Project deletion"): N calls (default 100,000, ~1 KB of
 * inputs each) in the project deleted, 1,000 in a second project, then the deletion timed while a
 * writer keeps ingesting 10-call batches into the second project; the slowest of those writes shows
 * how long ingest waited on the deletion. Usage: tsx bench/project-delete.ts [sqlite|postgres] [N]
 */

const STORE = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const N = Number(process.argv[3] ?? 100_000);
const T0 = Date.UTC(2025, 0, 1) * 1000;

function callParts(projectId: string, id: string, i: number): CallPart[] {
  return [
    {
      kind: 'start',
      project_id: projectId,
      id,
      op_name: 'chat',
      op_display_name: 'chat',
      display_name: null,
      trace_id: id,
      parent_id: null,
      thread_id: null,
      turn_id: null,
      started_at: T0 + i,
      attributes: '{}',
      inputs: JSON.stringify({ i, text: 'x'.repeat(1000) }),
      otel_dump: null,
      wb_user_id: 'u',
      wb_run_id: null,
      wb_run_step: null,
    },
    {
      kind: 'end',
      project_id: projectId,
      id,
      ended_at: T0 + i + 10,
      exception: null,
      output: '"ok"',
      summary: '{}',
      wb_run_step_end: null,
    },
  ];
}

async function seed(store: TraceStore, projectId: string, n: number): Promise<void> {
  for (let base = 0; base < n; base += 2000) {
    const parts: CallPart[] = [];
    for (let i = base; i < Math.min(n, base + 2000); i++) parts.push(...callParts(projectId, `c${i}`, i));
    await store.calls.write(parts);
  }
}

async function open(): Promise<{ store: TraceStore; dispose(): Promise<void> }> {
  if (STORE === 'postgres') {
    const adminUrl = await ensurePostgres();
    if (adminUrl === null) throw new Error('PostgreSQL is not available (set HEDDLE_TEST_POSTGRES_URL)');
    const name = `heddle_bench_delete_${process.pid}`;
    const admin = async (sql: string): Promise<void> => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(sql).finally(() => c.end());
    };
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const store = new PostgresStore({ url: url.toString() });
    await store.migrate();
    return { store, dispose: async () => (await store.close(), await admin(`DROP DATABASE ${name}`)) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-delete-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  return { store, dispose: async () => (await store.close(), fs.rmSync(dir, { recursive: true, force: true })) };
}

const { store, dispose } = await open();
try {
  let t = performance.now();
  await store.auth.ensureProject('acme/gone', 'acme', 'u');
  await seed(store, 'acme/gone', N);
  await seed(store, 'acme/kept', 1000);
  process.stdout.write(`${STORE}: seeded ${N} calls in ${Math.round(performance.now() - t)} ms\n`);

  let writing = true;
  const latencies: number[] = [];
  const writer = (async () => {
    for (let k = 0; writing; k++) {
      const parts: CallPart[] = [];
      for (let j = 0; j < 10; j++) parts.push(...callParts('acme/kept', `w${k}-${j}`, k * 10 + j));
      const started = performance.now();
      await store.calls.write(parts);
      latencies.push(performance.now() - started);
    }
  })();
  t = performance.now();
  const deleted = await store.projectData.deleteProject('acme/gone');
  const elapsed = performance.now() - t;
  writing = false;
  await writer;
  const remaining = Object.values(await store.projectData.rowCounts('acme/gone')).reduce((a, b) => a + b, 0);
  latencies.sort((a, b) => a - b);
  const pct = (p: number): string => (latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(1);
  process.stdout.write(
    `${STORE}: deleted ${deleted.calls} calls in ${Math.round(elapsed)} ms ` +
      `(${Math.round((deleted.calls ?? 0) / (elapsed / 1000))} calls/s), remaining rows ${remaining}; ` +
      `concurrent 10-call writes: ${latencies.length}, p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms\n`,
  );
} finally {
  await dispose();
}
