import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The traces page's roots-only status queries where children hold most of a status
 * (docs/query-performance.md "The status filter and sort off the commit path", "Roots only"): SQLite,
 * in process, BENCH_CALLS calls of bench/lib/workload.ts whose every fourth child ends with an
 * exception (a tool that fails under an agent that recovers) and whose roots do not, the indexer run
 * to the end, then with the roots-only filter: `status == "error"` newest first, the sort by status,
 * and the capped count of the errors (median of 6 after 2 warm-up runs).
 *
 * BENCH_TREE points at another checkout (its `src/` and `bench/lib/` are imported), to measure the
 * tree before a change in the same session: BENCH_TREE=/path/to/other-checkout npx tsx bench/status-roots.ts
 */
const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const PROJECT = 'bench/status-roots';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const load = async (rel: string): Promise<any> => import(pathToFileURL(path.join(tree, rel)).href);

async function main(): Promise<void> {
  const { SqliteStore } = await load('src/store/sqlite/sqlite-store.ts');
  const workload = await load('bench/lib/workload.ts');
  const time = await load('src/domain/time.ts');
  const { parseSort, parseQuery } = await load('src/domain/query/parse.ts');
  const { resolveCallField } = await load('src/domain/call-fields.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-status-roots-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  try {
    await store.migrate();
    const calls = workload.makeCalls(PROJECT, workload.opRefs(PROJECT, 3), CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
    let ends = 0;
    for (let i = 0; i < calls.length; i += 1_000) {
      const parts = workload.toParts(calls.slice(i, i + 1_000), 'bench-user', (iso: string) =>
        time.parseIsoMicros(iso),
      );
      const rootIds = new Set(
        (parts as Array<{ kind: string; id: string; parent_id?: string | null }>)
          .filter((p) => p.kind === 'start' && p.parent_id === null)
          .map((p) => p.id),
      );
      for (const part of parts as Array<{ kind: string; id: string; exception?: string | null }>)
        if (part.kind === 'end') part.exception = !rootIds.has(part.id) && ends++ % 4 === 0 ? 'tool failed' : null;
      await store.calls.write(parts);
    }
    while ((await store.callText.step()).project !== null);
    // the compiler's hints are cached for a second
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const errors = parseQuery(
      { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] } },
      resolveCallField,
    );
    const roots = { project_id: PROJECT, filter: { trace_roots_only: true } };
    const median = async (run: () => Promise<unknown>): Promise<number> => {
      const times: number[] = [];
      for (let r = 0; r < 8; r++) {
        const t0 = performance.now();
        await run();
        if (r >= 2) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return Number(times[3]!.toFixed(1));
    };
    const page = (q: object) => async (): Promise<void> => {
      for await (const _ of store.calls.query({ ...roots, limit: 100, ...q }));
    };
    const rows = {
      errors_newest_first_ms: await median(
        page({ where: errors, sort_by: parseSort([{ field: 'started_at', direction: 'desc' }], resolveCallField) }),
      ),
      sort_by_status_ms: await median(
        page({ sort_by: parseSort([{ field: 'summary.weave.status', direction: 'asc' }], resolveCallField) }),
      ),
      errors_count_capped_ms: await median(() => store.calls.count({ ...roots, where: errors, limit: 10_000 })),
    };
    console.log(JSON.stringify({ tree, calls: CALLS, load: os.loadavg()[0]!.toFixed(1), ...rows }));
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
