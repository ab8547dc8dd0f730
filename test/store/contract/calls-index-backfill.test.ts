import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { CallPart, CallRow, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { migration as valuesByIndexer } from '../../../src/store/sql/migrations/018-call-values-by-indexer.js';
import { emptyPostgres, tempSqliteFile, withPostgres, withSqlite } from '../schema/fresh-schemas.js';
import { end, ids, sort, start, where } from './parts.js';

/**
 * Calls stored before migration 016 get its counters and latency from the background backfill
 * (src/store/sql/call-indexes/backfill.ts), while ingest goes on: every query answers the same before,
 * during and after it, on both stores. "Before" is made by emptying the indexes of a migrated store
 * and rewinding the backfill's position: exactly what the migration leaves on a store with calls.
 * The input equalities' `call_values` is the call indexer's (migration 018): the test also runs its
 * steps between batches, from marks that covered calls whose leaves were emptied.
 */

const PROJECTS = ['acme/a', 'acme/b', 'acme/c'];
const T0 = 1_700_000_000_000_000;
const inputs = (user: string): string => JSON.stringify({ user, cfg: { model: `m-${user}` } });

interface Opened {
  store: TraceStore;
  /** Runs SQL on a connection of its own. */
  exec(sql: string): Promise<void>;
  /** Migration 018's SQL for this store. */
  migration018: string;
}

async function openSqlite(t: TestContext): Promise<Opened> {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  t.after(() => store.close());
  return {
    store,
    exec: async (sql) => withSqlite(file, (db) => void db.exec(sql)),
    migration018: String(valuesByIndexer.sqlite),
  };
}

async function openPostgres(t: TestContext): Promise<Opened | null> {
  const url = await emptyPostgres(t);
  if (url === null) return null;
  const store = new PostgresStore({ url });
  await store.migrate();
  t.after(() => store.close());
  return {
    store,
    exec: (sql) => withPostgres(url, async (client) => void (await client.query(sql))),
    migration018: String(valuesByIndexer.postgres),
  };
}

/** What migration 016 leaves on a store that already had calls. */
const REWIND = `
  DELETE FROM call_values;
  DELETE FROM call_counts;
  UPDATE calls SET latency_ms = NULL;
  DELETE FROM call_index_builds;
  INSERT INTO call_index_builds (name, cursor_project, cursor_id, bound_project, bound_id, calls_done)
    SELECT 'calls', NULL, NULL, project_id, id, 0 FROM calls ORDER BY project_id DESC, id DESC LIMIT 1;`;

/** Calls of one project: finished ones of several latencies, running ones, an end before its start, a deletion. */
function history(project: string, n: number, offset = 0): CallPart[] {
  const parts: CallPart[] = [];
  for (let i = offset; i < offset + n; i += 1) {
    const id = `c-${String(i).padStart(3, '0')}`;
    const started = T0 + i * 1_000_000;
    if (i % 5 !== 4) parts.push(start(project, id, { started_at: started, inputs: inputs(`u-${i % 3}`) }));
    // every 4th call is still running; latencies repeat so ties are broken by id
    if (i % 4 !== 3) parts.push(end(project, id, { ended_at: started + ((i * 7919) % 13) * 1_000 + 17 }));
  }
  return parts;
}

/** Each query through the store, and its answer computed without the indexes. */
async function assertSameAnswers(store: TraceStore, label: string): Promise<void> {
  for (const project of PROJECTS) {
    const all = await store.calls.count({ project_id: project });
    const scanned = await store.calls.count({ project_id: project, started_from: 0 });
    assert.equal(Number(all.count), Number(scanned.count), `${label}: count of ${project}`);

    const q = (expr: unknown): CallsQuery => ({ project_id: project, where: where(expr) });
    const eq = await ids(store, q({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] }));
    const viaIn = await ids(
      store,
      q({ $in: [{ $getField: 'inputs.user' }, [{ $literal: 'u-1' }, { $literal: 'u-1' }]] }),
    );
    assert.deepEqual(eq, viaIn, `${label}: inputs.user == u-1 in ${project}`);
    const deep = await store.calls.count(q({ $eq: [{ $getField: 'inputs.cfg.model' }, { $literal: 'm-u-2' }] }));
    const deepIn = await store.calls.count(
      q({ $in: [{ $getField: 'inputs.cfg.model' }, [{ $literal: 'm-u-2' }, { $literal: 'm-u-2' }]] }),
    );
    assert.equal(Number(deep.count), Number(deepIn.count), `${label}: inputs.cfg.model == m-u-2 in ${project}`);

    const sorted = await ids(store, {
      project_id: project,
      sort_by: sort([{ field: 'summary.weave.latency_ms', direction: 'desc' }]),
    });
    const rows: CallRow[] = [];
    for await (const row of store.calls.query({ project_id: project })) rows.push(row);
    const latency = (r: CallRow): number | null =>
      r.ended_at == null ? null : Math.floor((Number(r.ended_at) - Number(r.started_at)) / 1000);
    const expected = rows
      .sort((a, b) => {
        const la = latency(a);
        const lb = latency(b);
        if (la !== lb) return la === null ? 1 : lb === null ? -1 : lb - la;
        return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
      })
      .map((r) => r.id);
    assert.deepEqual(sorted, expected, `${label}: latency sort of ${project}`);
  }
}

async function backfillWhileWriting(t: TestContext, opened: Opened | null): Promise<void> {
  if (opened === null) return t.skip('PostgreSQL unavailable');
  const { store, exec } = opened;
  for (const project of PROJECTS) await store.calls.write(history(project, 20));
  await store.calls.deleteCascade('acme/b', ['c-002'], T0 + 1);
  // the call indexer's marks cover every project, as on a store at migration 017
  while ((await store.callText.step()).project !== null);
  await exec(REWIND);
  assert.equal(await store.callIndexes.ready('acme/a'), false);
  // calls below the marks have no leaves now: migration 018 has the indexer go through them again
  await exec(opened.migration018);
  await assertSameAnswers(store, 'before the backfill');

  let batches = 0;
  let sawSomeReady = false;
  for (;;) {
    const progress = await store.callIndexes.backfillBatch(15);
    batches += 1;
    // writes between batches: new calls, ends of calls stored before, deletions, in every project
    const round = batches;
    for (const project of PROJECTS) {
      await store.calls.write(history(project, 2, 100 + round * 2));
      await store.calls.write([end(project, 'c-003', { ended_at: T0 + 3_000_000 + round * 5_000 })]);
    }
    await store.calls.deleteCascade('acme/c', [`c-${String(round).padStart(3, '0')}`], T0 + 2);
    await assertSameAnswers(store, `after batch ${batches}`);
    await store.callText.step(10);
    await assertSameAnswers(store, `after batch ${batches} and an indexer step`);
    // small batches: for a while the first project reads its indexes and the last one does not
    if ((await store.callIndexes.ready('acme/a')) && !(await store.callIndexes.ready('acme/c'))) sawSomeReady = true;
    if (progress.done) break;
    assert.ok(batches < 20, 'the backfill ends');
  }
  assert.ok(sawSomeReady, 'projects became ready one by one');
  assert.equal(await store.callIndexes.ready('acme/c'), true);
  assert.equal((await store.callIndexes.progress()).done, true);
  await assertSameAnswers(store, 'after the backfill');
  while ((await store.callText.step()).project !== null);
  for (const project of PROJECTS) assert.equal(await store.callText.covers(project), true);
  await assertSameAnswers(store, 'after the backfill and the indexer');
}

test('SQLite: the backfill of call indexes keeps every answer the same while calls are written', async (t) => {
  await backfillWhileWriting(t, await openSqlite(t));
});

test('PostgreSQL: the backfill of call indexes keeps every answer the same while calls are written', async (t) => {
  await backfillWhileWriting(t, await openPostgres(t));
});
