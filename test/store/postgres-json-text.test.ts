import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { testDatabase } from '../helpers/postgres.js';
import { rng } from './contract/rollup-fixture.js';

/**
 * `heddle_json_text` since migration 038 (split at the quotes instead of a regular expression) gives
 * the text it gave before (and `heddle_call_text`, in PL/pgSQL since then, the index text it gave), which is the compact text SQLite's `json()` gives for the same value: on
 * values made to break it (separators, quotes and backslashes inside keys and strings, escapes,
 * nesting, scalars) and on random ones.
 */

/** The functions as migrations 001 and 017 made them: what the new ones must equal. */
const BEFORE = String.raw`
CREATE FUNCTION pg_temp.json_text_before(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT regexp_replace(j::text, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g') $$;
CREATE FUNCTION pg_temp.call_text_before(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE WHEN j IS NULL THEN '' WHEN strpos(w, '\') = 0 THEN w ELSE w || COALESCE((
    SELECT E'\n' || string_agg(s, E'\n') FROM (SELECT v #>> '{}' AS s FROM jsonb_path_query(j, 'strict $.**') AS l(v)
      WHERE jsonb_typeof(v) = 'string') leaves WHERE strpos(w, s) = 0), '') END
  FROM (SELECT pg_temp.json_text_before(j) AS w) rendered
$$;`;

const PIECES = [
  'a',
  ', ',
  ': ',
  '"',
  '\\',
  '\\"',
  '\\\\',
  '\n',
  '\t',
  '\u0001',
  'ü',
  '😀',
  ' ',
  ',',
  ':',
  '{}',
  '[1, 2]',
  'u',
];

function randomValue(rnd: () => number, depth: number): unknown {
  const text = (): string =>
    Array.from({ length: Math.floor(rnd() * 6) }, () => PIECES[Math.floor(rnd() * PIECES.length)]).join('');
  const kind = Math.floor(rnd() * (depth > 2 ? 4 : 6));
  if (kind === 0) return text();
  if (kind === 1) return Math.round(rnd() * 1e6) / 100;
  if (kind === 2) return rnd() < 0.5 ? null : rnd() < 0.5;
  if (kind === 3) return text();
  if (kind === 4) return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(rnd, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => [text(), randomValue(rnd, depth + 1)]));
}

test('heddle_json_text: the text of migration 001 and of SQLite, for every value', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const store = new PostgresStore({ url });
  await store.migrate();
  await store.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sqlite = new Database(':memory:');
  t.after(async () => {
    sqlite.close();
    await client.end();
  });
  await client.query(BEFORE);
  const rnd = rng(38);
  const values: unknown[] = [
    { 'k, ey': 'v: al', 'x"y': ['a, b', 'c\\"d', '\\', '"'], n: 1.5, e: {}, l: [] },
    'a, b: c',
    '"quoted", \\"escaped\\"',
    ['\\\\', '\\"', '", "', '": "'],
    { '': '', ' ': ' , ', nested: { deep: [{ 'a:': ',' }] } },
    [],
    {},
    42,
    true,
    null,
    ...Array.from({ length: 400 }, () => randomValue(rnd, 0)),
  ];
  for (const value of values) {
    const json = JSON.stringify(value);
    const { rows } = await client.query<Record<'now' | 'before' | 'text' | 'textBefore' | 'printed', string>>(
      `SELECT heddle_json_text($1::jsonb) AS now, pg_temp.json_text_before($1::jsonb) AS before,
         heddle_call_text($1::jsonb) AS text, pg_temp.call_text_before($1::jsonb) AS "textBefore",
         $1::jsonb::text AS printed`,
      [json],
    );
    const row = rows[0]!;
    assert.equal(row.now, row.before, `migration 001's text of ${json}`);
    assert.equal(row.text, row.textBefore, `migration 017's index text of ${json}`);
    // JSONB orders keys its own way: SQLite compacts the text PostgreSQL printed, in that order
    const compact = (sqlite.prepare('SELECT json(?) AS j').get(row.printed) as { j: string }).j;
    assert.equal(row.now, compact, `SQLite's text of ${json}`);
  }
  const { rows } = await client.query<{ json: string | null; text: string }>(
    'SELECT heddle_json_text(NULL) AS json, heddle_call_text(NULL) AS text',
  );
  assert.deepEqual(rows[0], { json: null, text: '' }, 'NULL as before');
});
