import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, indexAll, sort, start, where } from './parts.js';
import { rng } from './rollup-fixture.js';

/**
 * The traces page's search box (web/src/lib/query.ts `searchText`) sends an `$or` of `$contains`
 * on `inputs` and on `output` as a whole, case-insensitive. The compiler answers an `$or` whose
 * arms are all `$contains` the substring index answers with one search for the union of their
 * candidates, then the arms' exact tests (calls-query/expr.ts). Each check compares it with the same
 * query whose substrings are `$convert`s of the literals (answered by the scan): pages, counts,
 * with other conditions beside it, before the indexer ran, part way, done, and after changes.
 */

const WORDS = ['alpha', 'Bravo', 'CHARLIE', 'delta', 'echo', 'Foxtrot', 'golf', 'hotel', 'say "hi"', 'c:\\dir', 'ünï'];
const OUTPUT_ONLY = ['outputword', 'Zulu'];

forEachAdapter('the search box: $or of $contains through the substring index', (store) => {
  const rnd = rng(16_018);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const phrase = (words: readonly string[], max: number): string =>
    Array.from({ length: 1 + Math.floor(rnd() * max) }, () => pick(words)).join(' ');
  const inputs = (): string =>
    JSON.stringify({ prompt: phrase(WORDS, 4), n: Math.floor(rnd() * 1000), tags: [pick(WORDS)] });
  const output = (): string =>
    rnd() < 0.5
      ? JSON.stringify(phrase([...WORDS, ...OUTPUT_ONLY], 3))
      : JSON.stringify({ answer: phrase([...WORDS, ...OUTPUT_ONLY], 3), score: rnd() });

  /** Whole words, pieces of what was written (JSON text included), in varied case. */
  const needles = (written: string[], count: number): string[] => {
    const out = ['outputword', 'ZULU', 'bravo', 'nothing-here', 'hi"', 'ünï', '"n":', 'al'];
    while (out.length < count) {
      const text = pick(written);
      const from = Math.floor(rnd() * text.length);
      let s = text.slice(from, from + 3 + Math.floor(rnd() * 8));
      if (rnd() < 0.3) s = s.toUpperCase();
      out.push(s);
    }
    return out;
  };

  /** The search as the UI sends it, or with a second text in the output arm; `scan` takes `$convert`s. */
  const search = (text: string, outputText: string, ci: boolean, scan: boolean): unknown => ({
    $or: [
      ['inputs', text],
      ['output', outputText],
    ].map(([column, substr]) => ({
      $contains: {
        input: { $getField: column },
        substr: scan ? { $convert: { input: { $literal: substr }, to: 'string' } } : { $literal: substr },
        case_insensitive: ci,
      },
    })),
  });

  const compare = async (s: TraceStore, project: string, written: string[], label: string): Promise<number> => {
    let matched = 0;
    for (const needle of needles(written, 30)) {
      const ci = rnd() < 0.75;
      const other = rnd() < 0.3 ? pick(OUTPUT_ONLY) : needle;
      const beside = rnd() < 0.3 ? { $gt: [{ $getField: 'inputs.n' }, { $literal: 300 }] } : null;
      const roots = rnd() < 0.5;
      const q = (scan: boolean, page: boolean): CallsQuery => {
        const expr = search(needle, other, ci, scan);
        return {
          project_id: project,
          filter: roots ? { trace_roots_only: true } : null,
          where: where(beside ? { $and: [beside, expr] } : expr),
          ...(page ? { sort_by: sort([{ field: 'started_at', direction: 'desc' }]), limit: 7, offset: 2 } : {}),
        };
      };
      const what = `${label}: ${JSON.stringify(needle)} / ${JSON.stringify(other)}${ci ? ' (ci)' : ''}${beside ? ' and n > 300' : ''}${roots ? ', roots' : ''}`;
      const indexed = (await ids(s, q(false, false))).sort();
      assert.deepEqual(indexed, (await ids(s, q(true, false))).sort(), what);
      assert.deepEqual(await ids(s, q(false, true)), await ids(s, q(true, true)), `${what}: page`);
      assert.equal(Number((await s.calls.count(q(false, false))).count), indexed.length, `${what}: count`);
      matched += indexed.length;
    }
    return matched;
  };

  test(
    'answers as the scan before, during and after indexing, and after calls change',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const written: string[] = [];
      const parts: CallPart[] = [];
      for (let i = 0; i < 50; i++) {
        const id = `call-${String(i).padStart(3, '0')}`;
        const value = inputs();
        written.push(value);
        const parent = i % 4 === 0 ? {} : { parent_id: 'call-000', trace_id: 'trace-call-000' };
        parts.push(start(p, id, { inputs: value, started_at: 1_700_000_000_000_000 + i * 1000, ...parent }));
        if (i % 5 !== 0) {
          const out = output();
          written.push(out);
          parts.push(end(p, id, { output: out }));
        }
        parts.push(start(other, id, { inputs: JSON.stringify({ prompt: 'outputword alpha zulu' }) }));
      }
      for (let i = 0; i < parts.length; i += 20) await s.calls.write(parts.slice(i, i + 20));

      assert.equal(await s.callText.covers(p), false);
      const before = await compare(s, p, written, 'before the indexer ran');
      for (let i = 0; i < 3; i++) await s.callText.step(9);
      await compare(s, p, written, 'part way');
      await indexAll(s, 9);
      assert.equal(await s.callText.covers(p), true);
      const done = await compare(s, p, written, 'indexed');
      // the checks found calls (none would pass an index that answered nothing)
      assert.ok(before > 0 && done > 0, `matches: ${before}, ${done}`);

      const changes: CallPart[] = [];
      for (let i = 1; i < 50; i += 6) {
        const value = JSON.stringify({ prompt: `${phrase(WORDS, 2)} freshword` });
        written.push(value);
        changes.push(start(p, `call-${String(i).padStart(3, '0')}`, { inputs: value, parent_id: 'call-000' }));
        changes.push(end(p, `call-${String(i + 2).padStart(3, '0')}`, { output: JSON.stringify('late Zulu') }));
      }
      for (let i = 0; i < 5; i++) changes.push(start(p, `new-${i}`, { inputs: JSON.stringify({ q: 'FRESHWORD' }) }));
      await s.calls.write(changes);
      await s.calls.deleteCascade(p, ['call-004', 'call-007'], 1_800_000_000_000_000);
      written.push('freshword');
      await compare(s, p, written, 'changed after indexing');
      await indexAll(s, 9);
      await compare(s, p, written, 'changes indexed');
    }),
  );
});

test('an $or of $contains the index answers is one search; any other arm keeps the plain $or', () => {
  for (const [d, table] of [
    [sqliteDialect, 'FROM call_text_fts'],
    [postgresDialect, 'FROM call_texts'],
  ] as const) {
    const sql = (...arms: unknown[]): string =>
      compileCallsSelect({ project_id: 'p', where: where({ $or: arms }) }, d, { backfilled: true, covered: true }).sql;
    const contains = (column: string, text: string): unknown => ({
      $contains: { input: { $getField: column }, substr: { $literal: text }, case_insensitive: true },
    });
    const count = (text: string): number => text.split(table).length - 1;
    // SQLite: the project's calls are then read by the candidates' rowids, not along the project's index
    const narrows = (text: string): boolean => d !== sqliteDialect || text.includes('+c.project_id');
    const both = sql(contains('inputs', 'needle'), contains('output', 'needle'));
    assert.equal(count(both), 1);
    assert.ok(narrows(both));
    assert.equal(count(sql(contains('inputs', 'one'), contains('output', 'two'), contains('inputs.a', 'three'))), 1);
    // a two-character arm, or an arm that is not such a `$contains`, leaves each arm to itself
    for (const mixed of [
      sql(contains('inputs', 'needle'), contains('output', 'ne')),
      sql(contains('inputs', 'needle'), { $eq: [{ $getField: 'inputs.a' }, { $literal: 'x' }] }),
      sql(contains('attributes', 'needle'), contains('output', 'needle')),
    ]) {
      assert.equal(count(mixed), 1);
      assert.ok(d !== sqliteDialect || !mixed.includes('+c.project_id'));
    }
  }
});
