import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { CallPart } from '../../src/store/types.js';
import { testDatabase } from '../helpers/postgres.js';
import { end, start } from './contract/parts.js';

/**
 * PostgreSQL's planner statistics keep up with a burst (postgres/planner-statistics.ts): the
 * indexer's steps analyze `calls` and its own tables once they have grown, so a query planned right
 * after a burst does not plan for the empty tables of before. Autovacuum is off for these tables, so
 * only Heddle can have analyzed them.
 */
test('the indexer analyzes the tables a burst grew, once, and reports it', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const store = new PostgresStore({ url });
  const client = new pg.Client({ connectionString: url });
  t.after(async () => {
    await client.end();
    await store.close();
  });
  await store.migrate();
  await client.connect();
  const tables = await client.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`,
  );
  for (const { tablename } of tables.rows)
    await client.query(`ALTER TABLE ${tablename} SET (autovacuum_enabled = false)`);
  const reltuples = async (table: string): Promise<number> =>
    Number((await client.query(`SELECT reltuples FROM pg_class WHERE relname = $1`, [table])).rows[0].reltuples);
  assert.ok((await reltuples('calls')) <= 0, 'no statistics before the burst');

  const parts: CallPart[] = [];
  for (let i = 0; i < 3_000; i++)
    parts.push(
      start('acme/burst', `c-${i}`, { inputs: JSON.stringify({ user: `user-${i % 50}` }) }),
      end('acme/burst', `c-${i}`, { output: JSON.stringify({ answer: `answer ${i}` }) }),
    );
  for (let i = 0; i < parts.length; i += 500) await store.calls.write(parts.slice(i, i + 500));
  const analyzed: string[] = [];
  // the statistics are looked at every two seconds at most: wait (bounded) for a step that does
  for (let i = 0; i < 200 && !analyzed.includes('call_latency'); i++) {
    const step = await store.callText.step();
    analyzed.push(...(step.analyzed ?? []));
    if (step.project === null) {
      // the counters PostgreSQL keeps reach pg_stat_user_tables within a second
      await new Promise((resolve) => setTimeout(resolve, 100));
      await store.calls.write([start('acme/burst', `late-${i}`)]);
    }
  }
  assert.ok(analyzed.includes('calls'), `analyzed: ${analyzed.join(', ')}`);
  assert.ok(analyzed.includes('call_latency'), `analyzed: ${analyzed.join(', ')}`);
  assert.ok((await reltuples('calls')) >= 3_000);
  assert.equal(new Set(analyzed).size, analyzed.length, 'each table analyzed once for this growth');
});
