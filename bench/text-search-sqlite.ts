import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

/**
 * The traces page's search box on SQLite in process (docs/query-performance.md "The search box"):
 * BENCH_CALLS calls (default 100,000) with short inputs and outputs in one project, the call
 * indexer stepped until caught up, `ANALYZE`, then the search box's query (an `$or` of
 * case-insensitive `$contains` of "USER-1234" on `inputs` and `output`: 11 matches per 100,000
 * calls) compiled by the tree's `compileCallsSelect` / `compileCallsCount` and run on one
 * connection: the plan's lines that name `calls` or the FTS table, and the median of
 * BENCH_RUNS (default 20) runs of the first page (newest first, limit 100) and of the count.
 * No HTTP, so the machine's load moves it less than bench/query-scale.ts.
 *
 * BENCH_TREE points at another checkout (its `src/` and `test/store/contract/parts.ts` are
 * imported), so the code before a change is measured in the same session:
 *   BENCH_TREE=/path/to/other-checkout npx tsx bench/text-search-sqlite.ts
 */

const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const PROJECT = 'bench/search';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

type Compiled = { sql: string; params: unknown[] };
type Compile = (q: unknown, d: unknown, indexed: unknown) => Compiled;

async function main(): Promise<void> {
  const { SqliteStore } = await load<typeof import('../src/store/sqlite/sqlite-store.js')>(
    'src/store/sqlite/sqlite-store.ts',
  );
  const select = await load<{ compileCallsSelect: Compile; compileCallsCount: Compile }>(
    'src/store/sql/calls-query/select.ts',
  );
  const dialect = await load<typeof import('../src/store/sqlite/sqlite-dialect.js')>(
    'src/store/sqlite/sqlite-dialect.ts',
  );
  const { resolveCallField } = await load<typeof import('../src/domain/call-fields.js')>('src/domain/call-fields.ts');
  const { parseQuery, parseSort } =
    await load<typeof import('../src/domain/query/parse.js')>('src/domain/query/parse.ts');
  const { start, end } = await load<typeof import('../test/store/contract/parts.js')>('test/store/contract/parts.ts');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-text-search-'));
  const file = path.join(dir, 'heddle.sqlite');
  try {
    const store = new SqliteStore({ file });
    await store.migrate();
    for (let from = 0; from < CALLS; from += 1000) {
      const parts = [];
      for (let n = from; n < Math.min(CALLS, from + 1000); n++) {
        const id = `c-${String(n).padStart(8, '0')}`;
        const inputs = { q: `${WORDS[n % 10]} ${WORDS[(n * 7) % 10]} user-${n}` };
        parts.push(
          start(PROJECT, id, { inputs: JSON.stringify(inputs), started_at: 1_700_000_000_000_000 + n * 1000 }),
        );
        parts.push(end(PROJECT, id, { output: JSON.stringify({ a: `${WORDS[(n * 3) % 10]} out-${n}` }) }));
      }
      await store.calls.write(parts);
    }
    while ((await store.callText.step(1000)).project !== null);
    await store.close();

    const db = new Database(file);
    dialect.registerSqliteFunctions(db);
    db.exec('ANALYZE');
    const named = (params: unknown[]): Record<string, unknown> =>
      Object.fromEntries(params.map((v, i) => [`p${i + 1}`, typeof v === 'boolean' ? (v ? 1 : 0) : v]));
    const expr = {
      $or: ['inputs', 'output'].map((column) => ({
        $contains: { input: { $getField: column }, substr: { $literal: 'USER-1234' }, case_insensitive: true },
      })),
    };
    const where = parseQuery({ $expr: expr }, resolveCallField);
    const indexed = { backfilled: true, covered: true };
    const page = select.compileCallsSelect(
      {
        project_id: PROJECT,
        where,
        sort_by: parseSort([{ field: 'started_at', direction: 'desc' }], resolveCallField),
        limit: 100,
      },
      dialect.sqliteDialect,
      indexed,
    );
    const count = select.compileCallsCount({ project_id: PROJECT, where }, dialect.sqliteDialect, indexed);
    console.log(`${CALLS.toLocaleString('en-US')} calls, tree ${tree}`);
    for (const [name, c] of [
      ['first page', page],
      ['count', count],
    ] as const) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(named(c.params)) as { detail: string }[];
      const lines = plan.map((r) => r.detail).filter((d) => /MULTI-INDEX|\bc\b|call_text_fts|TEMP B-TREE/.test(d));
      const statement = db.prepare(c.sql);
      const rows = statement.all(named(c.params));
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        statement.all(named(c.params));
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      console.log(
        `${name}: median ${median.toFixed(2)} ms of ${RUNS} (${rows.length} rows); plan: ${lines.join(' | ')}`,
      );
    }
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
