import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { until } from '../helpers/until.js';
import { end, start } from './contract/parts.js';
import { tempSqliteFile, withSqlite } from './schema/fresh-schemas.js';

/**
 * The SQLite call store refreshes the planner statistics of `calls` when the rows written since the
 * last refresh reach the rows the statistics describe (sqlite-call-store.ts): a new store gets them
 * after its first 10,000 rows, and a new process on a store whose statistics already describe more
 * rows than it has written does not re-read every index (at 10M calls that took the writer a minute).
 */

const T0 = 1_700_000_000_000_000;

async function writeCalls(store: SqliteStore, project: string, from: number, calls: number): Promise<void> {
  for (let i = from; i < from + calls; i += 500) {
    const parts = [];
    for (let k = i; k < Math.min(i + 500, from + calls); k += 1) {
      const id = `c-${String(k).padStart(6, '0')}`;
      parts.push(start(project, id, { started_at: T0 + k }), end(project, id, { ended_at: T0 + k + 5 }));
    }
    await store.calls.write(parts);
  }
}

const statistics = (file: string): string =>
  withSqlite(file, (db) => {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get() !== undefined;
    if (!exists) return '';
    return JSON.stringify(db.prepare("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'calls' ORDER BY idx").all());
  });

const described = (file: string): number => {
  const stats = JSON.parse(statistics(file) || '[]') as { stat: string }[];
  return Math.max(0, ...stats.map((s) => Number(s.stat.split(' ')[0])));
};

test('planner statistics: refreshed on a new store, kept by a new process until the table has grown', async (t) => {
  const file = tempSqliteFile(t);
  const first = new SqliteStore({ file });
  await first.migrate();
  await writeCalls(first, 'acme/p', 0, 30_000);
  await until('statistics of calls', async () => (described(file) > 0 ? true : null));
  await sleep(500);
  await first.close();
  const made = statistics(file);
  const rows = described(file);
  assert.ok(rows >= 12_000, `statistics describe ${rows} rows`);

  // a new process writes fewer rows (parts) than the statistics describe: they stay
  const second = new SqliteStore({ file });
  await second.migrate();
  const fewer = Math.floor(rows / 2) - 500;
  await writeCalls(second, 'acme/p', 30_000, fewer);
  await sleep(1_000);
  assert.equal(statistics(file), made, `statistics refreshed after ${2 * fewer} rows of ${rows} described`);
  // once it has written as many as they describe, they are refreshed, describing the whole table
  await writeCalls(second, 'acme/p', 30_000 + fewer, 1_000);
  const total = 30_000 + fewer + 1_000;
  await until('refreshed statistics', async () => (described(file) === total ? true : null));
  await second.close();
});
