import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { CallPart, TraceStore } from '../../src/store/types.js';
import { ensurePostgres } from '../../test/helpers/postgres-server.js';

/**
 * A store of its own for the store-level benchmarks (bench/project-delete.ts, bench/retention.ts),
 * and the ~1 KB calls they seed it with.
 */

/** One call's start and end: ~1 KB of inputs, started at `t0 + i` microseconds. */
export function callParts(projectId: string, id: string, i: number, t0: number): CallPart[] {
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
      started_at: t0 + i,
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
      ended_at: t0 + i + 10,
      exception: null,
      output: '"ok"',
      summary: '{}',
      wb_run_step_end: null,
    },
  ];
}

/** Writes `n` calls (`c0`, `c1` …) into the project in batches of 2,000. */
export async function seed(store: TraceStore, projectId: string, n: number, t0: number): Promise<void> {
  for (let base = 0; base < n; base += 2000) {
    const parts: CallPart[] = [];
    for (let i = base; i < Math.min(n, base + 2000); i++) parts.push(...callParts(projectId, `c${i}`, i, t0));
    await store.calls.write(parts);
  }
}

/** A fresh, migrated store of the kind asked for (a database or a temp dir named after `label`), and how to drop it. */
export async function openBenchStore(
  kind: 'sqlite' | 'postgres',
  label: string,
): Promise<{ store: TraceStore; dispose(): Promise<void> }> {
  if (kind === 'postgres') {
    const adminUrl = await ensurePostgres();
    if (adminUrl === null) throw new Error('PostgreSQL is not available (set HEDDLE_TEST_POSTGRES_URL)');
    const name = `heddle_bench_${label}_${process.pid}`;
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `heddle-bench-${label}-`));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  return { store, dispose: async () => (await store.close(), fs.rmSync(dir, { recursive: true, force: true })) };
}
