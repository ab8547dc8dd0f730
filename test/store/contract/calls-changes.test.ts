import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import type { CallChangeCursor, CallRow, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { testDatabase } from '../../helpers/postgres.js';
import { end, start } from './parts.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/**
 * The live tail's read (CallsQuery.changed_after, CallStore.changeHead): calls written after a
 * position, in write (arrival) order, on every adapter; on PostgreSQL a transaction that commits
 * late is never skipped by a cursor that moved past later writes.
 */

async function changes(store: TraceStore, q: CallsQuery, after: CallChangeCursor): Promise<CallRow[]> {
  const out: CallRow[] = [];
  for await (const row of store.calls.query({ ...q, changed_after: after })) out.push(row);
  return out;
}

/**
 * As `changes`, polling until `count` rows are handed out (or 30 s pass). On PostgreSQL a write is
 * handed out only once every older transaction of its database has ended, so a write may wait.
 */
async function changesOf(store: TraceStore, q: CallsQuery, after: CallChangeCursor, count: number): Promise<CallRow[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await changes(store, q, after);
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const cursorOf = (row: CallRow): CallChangeCursor => ({ seq: Number(row.change_seq), id: row.id });

forEachAdapter('calls changed_after', (store) => {
  test(
    'writes after the head come back in arrival order, each write moving its call to the end',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([start(project, 'before')]);
      const head = await store().calls.changeHead();
      // started_at runs against arrival: the tail must still follow arrival
      await store().calls.write([start(project, 'z', { started_at: 3_000_000 })]);
      await store().calls.write([start(project, 'y', { started_at: 2_000_000 })]);
      await store().calls.write([start(project, 'x', { started_at: 1_000_000 })]);
      // on PostgreSQL the head may sit before 'before' too (a transaction open elsewhere holds it back)
      let rows = await changesOf(store(), { project_id: project, filter: { call_ids: ['x', 'y', 'z'] } }, head, 3);
      assert.deepEqual(
        rows.map((r) => r.id),
        ['z', 'y', 'x'],
      );
      const afterY = cursorOf(rows[1]!);
      await store().calls.write([end(project, 'z')]);
      await store().calls.write([{ kind: 'update', project_id: project, id: 'y', display_name: 'renamed' }]);
      rows = await changesOf(store(), { project_id: project }, afterY, 3);
      assert.deepEqual(
        rows.map((r) => [r.id, r.display_name, r.ended_at !== null]),
        [
          ['x', null, false],
          ['z', null, true],
          ['y', 'renamed', false],
        ],
      );
      // one write of several calls: one position, told apart by id
      const last = cursorOf(rows[2]!);
      await store().calls.write([start(project, 'b2'), start(project, 'b1')]);
      rows = await changesOf(store(), { project_id: project, filter: { call_ids: ['b1', 'b2', 'x'] } }, last, 2);
      assert.deepEqual(
        rows.map((r) => r.id),
        ['b1', 'b2'],
      );
      assert.equal(rows[0]!.change_seq, rows[1]!.change_seq);
      assert.deepEqual(await changes(store(), { project_id: project }, cursorOf(rows[1]!)), []);
      // deleted calls are not shown; other projects never
      await store().calls.deleteCascade(project, ['b1'], 1);
      assert.deepEqual(
        (await changesOf(store(), { project_id: project }, last, 1)).map((r) => r.id),
        ['b2'],
      );
      assert.deepEqual(await changes(store(), { project_id: freshProject() }, head), []);
    }),
  );
});

test('PostgreSQL: a transaction that commits after a later one is still delivered, in order', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const store = new PostgresStore({ url });
  await store.migrate();
  const slow = new pg.Client({ connectionString: url });
  await slow.connect();
  t.after(async () => {
    await slow.end();
    await store.close();
  });
  const project = 'acme/horizon';
  const head = await store.calls.changeHead();
  // the slow writer takes its transaction id first, then a faster write commits
  await slow.query('BEGIN');
  await slow.query(
    `INSERT INTO calls (project_id, id, op_name, trace_id, started_at, attributes, inputs, wb_user_id, change_seq)
     VALUES ($1, 'slow', 'op', 'slow', 1, '{}', '{}', 'u', pg_current_xact_id()::text::bigint)`,
    [project],
  );
  await store.calls.write([start(project, 'fast')]);
  assert.deepEqual(
    await changes(store, { project_id: project }, head),
    [],
    'nothing is handed out while an older transaction may still commit',
  );
  await slow.query('COMMIT');
  const rows = await changesOf(store, { project_id: project }, head, 2);
  assert.deepEqual(
    rows.map((r) => r.id),
    ['slow', 'fast'],
  );
});

test('PostgreSQL: an open transaction in another database of the server does not hold the tail back', async (t) => {
  const url = await testDatabase(t);
  const elsewhere = await testDatabase(t);
  if (url === null || elsewhere === null) return;
  const store = new PostgresStore({ url });
  await store.migrate();
  const foreign = new pg.Client({ connectionString: elsewhere });
  const local = new pg.Client({ connectionString: url });
  await foreign.connect();
  await local.connect();
  t.after(async () => {
    await foreign.end();
    await local.end();
    await store.close();
  });
  const project = 'acme/neighbours';
  const head = await store.calls.changeHead();
  const takeXid = async (client: pg.Client): Promise<void> => {
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
  };
  const handedOut = async (): Promise<string[]> =>
    (await changes(store, { project_id: project }, head)).map((r) => r.id);
  // a transaction id taken in the other database, older than the write below
  await takeXid(foreign);
  await store.calls.write([start(project, 'seen')]);
  assert.deepEqual(await handedOut(), ['seen']);
  // the same in this database holds later writes back until it ends
  await takeXid(local);
  await store.calls.write([start(project, 'held')]);
  assert.deepEqual(await handedOut(), ['seen']);
  await local.query('COMMIT');
  await foreign.query('COMMIT');
  assert.deepEqual(
    (await changesOf(store, { project_id: project }, head, 2)).map((r) => r.id),
    ['seen', 'held'],
  );
});
