import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parseIsoMicros } from '../src/domain/time.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { makeCalls, opRefs, toParts } from './lib/workload.js';

/**
 * The background fill of the trace-name entries on SQLite (migration 026, src/store/sql/
 * call-entry-fills.ts; docs/query-performance.md "The trace-name sort off the commit path"):
 * BENCH_CALLS calls of bench/lib/workload.ts written and indexed, then the project's
 * `call_trace_names` entries and fill row removed, as on a store indexed before migration 026, and
 * `callText.step` run until nothing is left. Reports the fill's wall time, its steps and the
 * process's CPU µs per call (the writer thread included).
 */
const CALLS = Number(process.env.BENCH_CALLS ?? 30_000);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-trace-name-fill-'));
  const file = path.join(dir, 'heddle.sqlite');
  try {
    const store = new SqliteStore({ file });
    await store.migrate();
    const calls = makeCalls('bench/fill', opRefs('bench/fill', 3), CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
    for (let i = 0; i < calls.length; i += 1_000)
      await store.calls.write(toParts(calls.slice(i, i + 1_000), 'bench-user', (iso) => parseIsoMicros(iso)!));
    while ((await store.callText.step()).project !== null);
    const db = new Database(file);
    db.exec("DELETE FROM call_trace_names; DELETE FROM call_entry_fills WHERE entries = 'trace_names'");
    db.close();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let filled = 0;
    let steps = 0;
    for (;;) {
      const step = await store.callText.step();
      if (step.project === null) break;
      if (step.kind === 'fill') filled += step.calls;
      steps += 1;
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await store.close();
    console.log(
      JSON.stringify({
        calls: CALLS,
        filled,
        steps,
        wall_ms: Math.round(wall),
        cpu_us_per_call: Math.round((cpu.user + cpu.system) / filled),
        load: os.loadavg()[0]!.toFixed(1),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
