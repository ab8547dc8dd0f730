import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { MIGRATIONS } from '../../../src/store/sql/migrations/index.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { CallsQuery, TraceStore } from '../../../src/store/types.js';
import { assertPagesCut, fillDone, indexAll, sort } from '../contract/parts.js';
import {
  emptyPostgres,
  tempSqliteFile,
  withPostgres,
  withSqlite,
  postgresBeforeMigration,
  sqliteBeforeMigration,
} from './fresh-schemas.js';

/**
 * A store upgraded to migrations 024 (cost entries) and 025 (the roots' token entries) with calls the
 * indexer had already passed: the migrations fill nothing, the indexer writes each project's first
 * cost generation and fills its roots' token entries in the background, and every page sorted by
 * cost or by tokens (roots only too) equals the plain plan's before, during and after that.
 */
// the calls are written before migration 019, with the indexer's mark past all of them: 019–022 write
// their entries (latency, status, display name, tokens) for them, 024 and 025 nothing
const BEFORE_019 = MIGRATIONS.findIndex((m) => m.id === 19);
const PROJECT = 'acme/up';
const CALL_COUNT = 60;

/** Calls of three traces' shapes, every fourth a root, with usage on roots and children alike. */
function callsSql(): string {
  const rows: string[] = [];
  for (let i = 0; i < CALL_COUNT; i++) {
    const id = `u-${String(i).padStart(2, '0')}`;
    const parent = i % 4 === 0 ? 'NULL' : `'u-${String(i - (i % 4)).padStart(2, '0')}'`;
    const usage =
      i % 7 === 3
        ? '{}'
        : JSON.stringify({ usage: { 'gpt-4o': { prompt_tokens: (i * 37) % 50, completion_tokens: i % 5 } } });
    rows.push(
      `('${PROJECT}', '${id}', 'weave:///acme/up/op/f:abc', 't-${i - (i % 4)}', ${parent}, ${1_700_000_000_000_000 + i}, ${1_700_000_000_000_000 + i + 9}, '${usage}', ${i + 1})`,
    );
  }
  return `INSERT INTO calls (project_id, id, op_name, trace_id, parent_id, started_at, ended_at, summary, change_seq) VALUES ${rows.join(', ')};
    INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES ('${PROJECT}', ${CALL_COUNT}, 'u-${CALL_COUNT - 1}', 1, '')`;
}

const QUERIES: CallsQuery[] = (['summary.weave.total_tokens', 'summary.weave.total_cost'] as const).flatMap((field) =>
  (['asc', 'desc'] as const).flatMap((direction) =>
    [false, true].map((roots) => ({
      project_id: PROJECT,
      sort_by: sort([{ field, direction }]),
      ...(roots ? { filter: { trace_roots_only: true } } : {}),
    })),
  ),
);

async function samePages(store: TraceStore): Promise<void> {
  for (const q of QUERIES)
    await assertPagesCut(
      store,
      q,
      [
        [1, 0],
        [5, 2],
        [100, 0],
      ],
      q,
    );
}

/** The upgraded calls are below the mark: the indexer writes their new entries in the background. */
async function upgradeChecks(store: TraceStore, rootEntries: () => Promise<number>): Promise<void> {
  await samePages(store);
  assert.equal(await fillDone(store, PROJECT, 'token_roots'), false);
  assert.equal(await store.callText.costCovers(PROJECT), false);
  for (let i = 0; i < 4; i++) await store.callText.step(9);
  await samePages(store);
  await indexAll(store);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  assert.equal(await fillDone(store, PROJECT, 'token_roots'), true);
  assert.equal(await store.callText.costCovers(PROJECT), true);
  await samePages(store);
  assert.equal(await rootEntries(), CALL_COUNT / 4);
}

test('migrations 024 and 025 on SQLite: filled by the indexer in the background', async (t: TestContext) => {
  assert.ok(BEFORE_019 > 0);
  const file = tempSqliteFile(t);
  sqliteBeforeMigration(file, 19, callsSql());
  const store = new SqliteStore({ file });
  try {
    await store.migrate();
    await upgradeChecks(store, async () =>
      withSqlite(file, (db) => (db.prepare('SELECT COUNT(*) AS n FROM call_token_roots').get() as { n: number }).n),
    );
  } finally {
    await store.close();
  }
});

test('migrations 024 and 025 on PostgreSQL: filled by the indexer in the background', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await postgresBeforeMigration(url, 19, callsSql());
  const store = new PostgresStore({ url });
  try {
    await store.migrate();
    await upgradeChecks(store, () =>
      withPostgres(url, async (c) => Number((await c.query('SELECT COUNT(*) AS n FROM call_token_roots')).rows[0].n)),
    );
  } finally {
    await store.close();
  }
});
