import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { sessionOptions } from '../../src/store/postgres/postgres-store.js';
import { testDatabase } from '../helpers/postgres.js';

/**
 * Every connection of the PostgreSQL store starts with JIT off (postgres-store.ts sessionOptions):
 * compiling the plan of the latency sort's candidate union cost 25–30 ms against 1.4 ms of execution
 * at 1M calls. Options of the URL are kept; a URL that sets `jit` itself wins.
 */

test('session options: JIT off, the URL options kept, a jit of the URL wins', () => {
  assert.equal(sessionOptions('postgres://u@h/db'), '-c jit=off');
  assert.equal(
    sessionOptions('postgres://u@h/db?options=-c%20statement_timeout%3D5000'),
    '-c statement_timeout=5000 -c jit=off',
  );
  assert.equal(sessionOptions('postgres://u@h/db?options=-c%20jit%3Don'), '-c jit=on');
  assert.equal(sessionOptions('host=h dbname=db'), '-c jit=off');
});

test('a connection made with the session options has JIT off', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const client = new pg.Client({ connectionString: url, options: sessionOptions(url) });
  await client.connect();
  try {
    const { rows } = await client.query<{ jit: string }>('SHOW jit');
    assert.equal(rows[0]!.jit, 'off');
  } finally {
    // before the database is released (t.after)
    await client.end();
  }
});
