import assert from 'node:assert/strict';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { CallStatsService } from '../../../src/services/call-stats-service.js';
import { createServices } from '../../../src/services/index.js';
import { ProjectAccess } from '../../../src/services/project-access.js';
import { RollupBackfillStarter, runBackfill } from '../../../src/services/rollup/rollup-backfill.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../../src/store/types.js';
import { end } from '../contract/parts.js';
import { ADMIN, compareAll, PRICES, writeRandom } from '../contract/rollup-fixture.js';
import { emptyPostgres, tempSqliteFile, withPostgres, withSqlite } from './fresh-schemas.js';

/**
 * The call roll-up's backfill (docs/call-rollups.md) on a store upgraded with calls in it: the state
 * a database has right after migration 15 is made by emptying the roll-up and clearing every
 * `rolled_up` flag; `/calls/stats` then scans until the backfill completes. Writes between backfill
 * batches, to calls counted and not yet counted, must leave the roll-up equal to the scan.
 */

const UPGRADED = [
  'DELETE FROM call_rollups',
  'DELETE FROM call_rollup_latency',
  'UPDATE calls SET rolled_up = 0',
  "UPDATE call_rollup_state SET complete = 0 WHERE name = 'calls_hourly'",
];

async function scenario(open: () => Promise<TraceStore>, reset: () => Promise<void>): Promise<void> {
  let store = await open();
  const projects = ['acme/one', 'acme/two'];
  const ids = await writeRandom(store, projects[0]!, 21, 300);
  await writeRandom(store, projects[1]!, 22, 120);
  await store.close();
  await reset();
  store = await open();
  try {
    const starter = new RollupBackfillStarter(store, 3);
    assert.equal(await store.rollups.complete(), false);
    const service = new CallStatsService(store, new ProjectAccess(store), PRICES);
    const req = {
      project_id: projects[0]!,
      start: '2025-01-01T00:00:00Z',
      end: '2025-01-04T00:00:00Z',
      granularity: 3600,
      call_metrics: [{ metric: 'call_count' as const }],
    };
    assert.equal((await service.callStatsVia(ADMIN, req, 'auto'))!.path, 'scan', 'incomplete: the scan answers');
    assert.equal(await starter.ensureQueued(), true);
    assert.equal(await starter.ensureQueued(), false, 'queued once');
    // part of the table, then writes to calls on both sides of the cursor, then the rest
    let batch = await store.rollups.backfillBatch(null, 150);
    assert.equal(batch.read, 150);
    batch = await store.rollups.backfillBatch(batch.next, 150);
    await writeRandom(store, projects[0]!, 23, 60);
    await store.calls.write([
      end(projects[0]!, ids[1]!, { ended_at: Date.UTC(2025, 0, 2) * 1000, exception: 'late' }),
      end(projects[0]!, ids[299]!, { ended_at: Date.UTC(2025, 0, 2) * 1000 }),
    ]);
    await store.calls.deleteCascade(projects[0]!, [ids[5]!, ids[290]!], Date.UTC(2025, 1, 1) * 1000);
    const done = await runBackfill(store, null);
    assert.ok(done.added > 0 && done.read >= done.added);
    assert.equal(await store.rollups.complete(), true);
    assert.equal(await starter.ensureQueued(), false, 'complete: nothing to queue');
    assert.equal((await service.callStatsVia(ADMIN, req, 'auto'))!.path, 'rollup');
    for (const p of projects) assert.ok((await compareAll(store, p)) > 0);
    // a second backfill finds every call counted
    assert.equal((await runBackfill(store, null)).added, 0);
  } finally {
    await store.close();
  }
}

test('SQLite: the backfill fills the roll-up of an upgraded store while calls are written', async (t: TestContext) => {
  const file = tempSqliteFile(t);
  const open = async () => {
    const store = new SqliteStore({ file });
    await store.migrate();
    return store;
  };
  await scenario(open, async () => withSqlite(file, (db) => UPGRADED.forEach((q) => db.exec(q))));
});

test('PostgreSQL: the backfill fills the roll-up of an upgraded store while calls are written', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return t.skip('PostgreSQL unavailable');
  const open = async () => {
    const store = new PostgresStore({ url });
    await store.migrate();
    return store;
  };
  await scenario(open, () =>
    withPostgres(url, async (c) => {
      // the writers' roll-up changes not folded yet (migration 023) are part of the roll-up too
      for (const q of ['DELETE FROM call_rollup_pending', ...UPGRADED]) await c.query(q);
    }),
  );
});

test('a node queues the backfill on start, a job runner runs it, and the log says when it is done', async (t: TestContext) => {
  const file = tempSqliteFile(t);
  let store = new SqliteStore({ file });
  await store.migrate();
  await writeRandom(store, 'acme/one', 31, 200);
  await store.close();
  withSqlite(file, (db) => UPGRADED.forEach((q) => db.exec(q)));
  store = new SqliteStore({ file });
  await store.migrate();
  const services = createServices(store, loadConfig({ HEDDLE_DATA_DIR: path.dirname(file) }));
  const lines: string[] = [];
  const log = {
    info: (_obj: Record<string, unknown>, msg: string) => void lines.push(msg),
    warn: (_obj: Record<string, unknown>, msg: string) => void lines.push(msg),
    error: (_obj: Record<string, unknown>, msg: string) => void lines.push(msg),
  };
  try {
    await services.rollupBackfill.start(log);
    services.jobs.start(log);
    const deadline = Date.now() + 30_000;
    while (!(await store.rollups.complete())) {
      assert.ok(Date.now() < deadline, `backfill not done in 30 s; log: ${lines.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(lines.some((l) => l.startsWith('call roll-up backfill queued')));
    while (!lines.some((l) => l.startsWith('call roll-up backfill complete'))) {
      assert.ok(Date.now() < deadline, `no completion line; log: ${lines.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok((await compareAll(store, 'acme/one')) > 0);
  } finally {
    await services.jobs.stop();
    await store.close();
  }
});
