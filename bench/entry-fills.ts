import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parseIsoMicros } from '../src/domain/time.js';
import { ENTRY_FILLS } from '../src/store/sql/call-indexes/entry-fills.js';
import { SQLITE_TEXT_INDEX } from '../src/store/sql/call-indexes/text-dialects.js';
import { AT_OR_BELOW_MARK, type FillName } from '../src/store/sql/calls-query/coverage.js';
import { frag, raw, sqlTag } from '../src/store/sql/core/sql-tag.js';
import { registerSqliteFunctions, sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { bindNamed } from '../src/store/sqlite/statements.js';
import { makeCalls, opRefs, toParts } from './lib/workload.js';

/**
 * The background fills of the call indexer's entries on SQLite (src/store/sql/call-indexes/entry-fills.ts;
 * docs/query-performance.md "Entries filled in the background"): BENCH_CALLS calls of
 * bench/lib/workload.ts written and indexed, then the entries and fill rows of the fills named in
 * BENCH_FILLS (default: every fill) removed, as on a store indexed before the migrations that added
 * them, and:
 *
 * 1. `in the upgrade`: those entries written the way the released migrations 019–022 did, one
 *    `INSERT … SELECT` per table over every call at or below the mark, in one transaction, which is
 *    what an upgrade waited for before the server listened (then removed again);
 * 2. `background`: `callText.step` run until nothing is left, as the server's indexer does. Reports
 *    the wall time, the steps, the longest step after the first (how long the writer is held at once;
 *    the first also opens the store's writer) and the process's CPU µs per call and fill (the writer
 *    thread included).
 */
const CALLS = Number(process.env.BENCH_CALLS ?? 30_000);
const NAMES = (process.env.BENCH_FILLS ?? ENTRY_FILLS.map((fill) => fill.name).join(',')).split(',');
const FILLS = ENTRY_FILLS.filter((fill) => NAMES.includes(fill.name));
if (FILLS.length !== NAMES.length) throw new Error(`BENCH_FILLS: one of ${ENTRY_FILLS.map((f) => f.name).join(', ')}`);
/** The leaves of one column in `call_values`: the paths that start with its name and U+001F. */
const leavesOf = (column: string): string =>
  `DELETE FROM call_values WHERE substr(path, 1, ${column.length + 1}) = '${column}' || char(31)`;
/** What removes each fill's entries. */
const FORGET: Record<FillName, string> = {
  latency: 'DELETE FROM call_latency',
  latency_roots: 'DELETE FROM call_latency_roots',
  status: 'DELETE FROM call_status',
  status_roots: 'DELETE FROM call_status_roots',
  display: 'DELETE FROM call_display',
  tokens: 'DELETE FROM call_tokens',
  token_roots: 'DELETE FROM call_token_roots',
  trace_names: 'DELETE FROM call_trace_names',
  op_names: 'DELETE FROM call_op_names',
  output_values: leavesOf('output'),
  attribute_values: leavesOf('attributes'),
};

function forget(file: string): void {
  const db = new Database(file);
  for (const fill of FILLS)
    db.exec(`${FORGET[fill.name]}; DELETE FROM call_entry_fills WHERE entries = '${fill.name}'`);
  db.close();
}

/** The released migrations' way: every entry of the calls at or below the marks, in one transaction. */
function inTheUpgrade(file: string): number {
  const sql = sqlTag(sqliteDialect);
  const db = new Database(file);
  registerSqliteFunctions(db);
  const text = SQLITE_TEXT_INDEX(sqliteDialect);
  const statements = FILLS.map((fill) => fill.write(sql, text, frag`${raw(AT_OR_BELOW_MARK)}`));
  const t0 = performance.now();
  db.transaction(() => {
    for (const s of statements) db.prepare(s.sql).run(bindNamed(s.params));
  })();
  const ms = performance.now() - t0;
  db.close();
  return ms;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-entry-fills-'));
  const file = path.join(dir, 'heddle.sqlite');
  try {
    let store = new SqliteStore({ file });
    await store.migrate();
    const calls = makeCalls('bench/fill', opRefs('bench/fill', 3), CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
    for (let i = 0; i < calls.length; i += 1_000)
      await store.calls.write(toParts(calls.slice(i, i + 1_000), 'bench-user', (iso) => parseIsoMicros(iso)!));
    while ((await store.callText.step()).project !== null);
    await store.close();
    forget(file);
    const upgradeMs = inTheUpgrade(file);
    forget(file);
    store = new SqliteStore({ file });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let filled = 0;
    let steps = 0;
    let longest = 0;
    let first = 0;
    for (;;) {
      const s0 = performance.now();
      const step = await store.callText.step();
      if (step.project === null) break;
      // the first step of a new store process also opens its writer: reported apart
      if (steps === 0) first = performance.now() - s0;
      else longest = Math.max(longest, performance.now() - s0);
      if (step.kind === 'fill') filled += step.calls;
      steps += 1;
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await store.close();
    console.log(
      JSON.stringify({
        calls: CALLS,
        fills: FILLS.map((fill) => fill.name),
        in_the_upgrade_ms: Math.round(upgradeMs),
        background: {
          wall_ms: Math.round(wall),
          filled,
          steps,
          first_step_ms: Math.round(first),
          longest_other_step_ms: Math.round(longest),
          cpu_us_per_call_and_fill: Number(((cpu.user + cpu.system) / filled).toFixed(1)),
        },
        load: os.loadavg()[0]!.toFixed(1),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
