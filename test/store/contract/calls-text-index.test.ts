import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { textIndexNeedle } from '../../../src/store/sql/calls-query/text.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, start, where } from './parts.js';
import { rng } from './rollup-fixture.js';

/**
 * `$contains` on `inputs`/`output` fields asks the substring index of migration 017 for candidates
 * (calls-query/text.ts) and keeps the exact test. Each check compares its answer with the same test
 * whose substring is a `$convert` of the literal (the compiler answers that by a scan), over
 * randomised calls, before the indexer has run, part way, when done, and after calls changed.
 */

// ASCII of both cases, pattern characters of LIKE and FTS5, escapes of JSON, and the characters
// whose lower-casing is not one code point to one (U+0130, U+212A KELVIN SIGN, final sigma)
const ALPHABET = [
  ...'abcdefghijKLMNOPQRSTuvwxyz0123456789 -_%."\\:,{}[]',
  '\n',
  '\t',
  'é',
  'É',
  'ß',
  'Σ',
  'σ',
  'ς',
  'İ',
  'ı',
  '\u212a',
  '日本',
  '😀',
  'e\u0301',
];
const PATHS = [
  'inputs.a',
  'inputs.b.c',
  'inputs.b',
  'inputs.b.d.0',
  'inputs',
  'inputs.long',
  'inputs.q',
  'inputs.n',
  'output',
  'output.x',
];

forEachAdapter('$contains through the substring index', (store) => {
  const rnd = rng(16_017);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const text = (max: number): string => {
    let out = '';
    const n = Math.floor(rnd() * max);
    for (let i = 0; i < n; i++) out += pick(ALPHABET);
    return out;
  };
  const inputs = (): string =>
    JSON.stringify({
      a: text(20),
      b: { c: text(12), d: [text(8), Math.floor(rnd() * 100_000)] },
      n: Math.floor(rnd() * 1_000_000),
      long: text(300) + 'x'.repeat(130),
      // JSON escapes these: the rendering holds them escaped, the test reads them as they are
      q: rnd() < 0.5 ? `say "hi" c:\\dir\nline ${text(5)}` : text(10),
      // lower-cased to ASCII by the full Unicode mapping: KELVIN SIGN → k, U+0130 → i + U+0307
      k: rnd() < 0.5 ? `\u212aey xİ ΑΣ ${text(3)}` : text(10),
    });
  const output = (): string => (rnd() < 0.5 ? JSON.stringify(text(30)) : JSON.stringify({ x: text(30), y: [1, 'k'] }));

  /** Substrings of what was written (cut from the JSON text), of 1..n characters, in varied case. */
  const needles = (written: string[], count: number): string[] => {
    const out = [
      'zzz',
      'KEY',
      'key',
      '"a":',
      '\\"',
      'xxxxxxxx',
      '%_%',
      'aİ',
      'ΣΑΣ',
      'y "hi',
      'c:\\d',
      'r\nli',
      'Y "HI',
      'kEy',
      'EY X',
      'Y XI',
      'ΑΣ',
    ];
    while (out.length < count) {
      const chars = [...JSON.parse(pick(written)).a, ...pick(written)];
      const from = Math.floor(rnd() * chars.length);
      let s = chars.slice(from, from + 1 + Math.floor(rnd() * (rnd() < 0.2 ? 40 : 8))).join('');
      const r = rnd();
      if (r < 0.25) s = s.toUpperCase();
      else if (r < 0.5) s = s.toLowerCase();
      out.push(s);
    }
    return out;
  };

  const compare = async (
    s: TraceStore,
    project: string,
    written: string[],
    label: string,
    covered: boolean,
  ): Promise<void> => {
    assert.equal(await s.callText.covers(project), covered, `${label}: covered`);
    for (const needle of needles(written, 40)) {
      const path = /hi|c:|r\n/i.test(needle) ? 'inputs.q' : /key|y x|ασ/i.test(needle) ? 'inputs.k' : pick(PATHS);
      const ci = rnd() < 0.5;
      const q = (substr: unknown): CallsQuery => ({
        project_id: project,
        where: where({ $contains: { input: { $getField: path }, substr, case_insensitive: ci } }),
      });
      const indexed = (await ids(s, q({ $literal: needle }))).sort();
      const scanned = (await ids(s, q({ $convert: { input: { $literal: needle }, to: 'string' } }))).sort();
      const what = `${label}: ${path} contains ${JSON.stringify(needle)}${ci ? ' (case-insensitive)' : ''}`;
      assert.deepEqual(indexed, scanned, what);
      assert.equal(Number((await s.calls.count(q({ $literal: needle }))).count), indexed.length, what);
    }
  };
  const indexAll = async (s: TraceStore): Promise<number> => {
    let calls = 0;
    for (;;) {
      const step = await s.callText.step(7);
      if (step.project === null) return calls;
      calls += step.calls;
    }
  };

  test(
    'answers as the scan before, during and after indexing, and after calls change',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const written: string[] = [];
      const parts: CallPart[] = [];
      for (let i = 0; i < 60; i++) {
        const id = `call-${String(i).padStart(3, '0')}`;
        const value = inputs();
        written.push(value);
        parts.push(start(p, id, { inputs: value, started_at: 1_700_000_000_000_000 + i }));
        if (i % 3 !== 0) parts.push(end(p, id, { output: output() }));
        parts.push(start(other, id, { inputs: inputs() }));
      }
      for (let i = 0; i < parts.length; i += 25) await s.calls.write(parts.slice(i, i + 25));
      await compare(s, p, written, 'before the indexer ran', false);

      for (let i = 0; i < 4; i++) await s.callText.step(7);
      await compare(s, p, written, 'part way', true);
      assert.ok((await indexAll(s)) > 0);
      await compare(s, p, written, 'indexed', true);

      // a start sent again with other inputs, later ends, deletions, new calls: the tail
      const changes: CallPart[] = [];
      for (let i = 0; i < 60; i += 4) {
        const value = inputs();
        written.push(value);
        changes.push(start(p, `call-${String(i).padStart(3, '0')}`, { inputs: value }));
        changes.push(end(p, `call-${String(i + 1).padStart(3, '0')}`, { output: output() }));
      }
      for (let i = 0; i < 10; i++) {
        const value = inputs();
        written.push(value);
        changes.push(start(p, `new-${i}`, { inputs: value }));
      }
      await s.calls.write(changes);
      await s.calls.deleteCascade(p, ['call-002', 'call-005', 'call-010'], 1_800_000_000_000_000);
      await compare(s, p, written, 'changed after indexing', true);
      await indexAll(s);
      await compare(s, p, written, 'changes indexed', true);
    }),
  );

  test(
    'an imported project (calls without change_seq) is answered by the scan, then by the index',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const written: string[] = [];
      const parts: CallPart[] = [];
      for (let i = 0; i < 30; i++) {
        const value = inputs();
        written.push(value);
        parts.push(start(p, `c-${i}`, { inputs: value }), end(p, `c-${i}`, { output: output() }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      const rows = [];
      for await (const item of s.projectData.exportRows(p)) rows.push(item);
      await s.projectData.deleteProject(p);
      await s.projectData.importRows(
        p,
        (async function* () {
          yield* rows;
        })(),
      );
      await compare(s, p, written, 'imported', false);
      await indexAll(s);
      await compare(s, p, written, 'imported and indexed', true);
    }),
  );
});

test('the index is asked only where it can answer', () => {
  assert.equal(textIndexNeedle('ab', false), null);
  assert.equal(textIndexNeedle('abc', false), 'abc');
  assert.equal(textIndexNeedle('日本語', false), '日本語');
  assert.equal(textIndexNeedle('ABC', true), 'abc');
  assert.equal(textIndexNeedle('abci', true), 'abc');
  assert.equal(textIndexNeedle('abi', true), null);
  assert.equal(textIndexNeedle('Σαβ', true), null);
  assert.equal(textIndexNeedle('a\u0000bc', false), null);
  for (const [d, table] of [
    [sqliteDialect, 'call_text_fts'],
    [postgresDialect, 'call_texts'],
  ] as const) {
    const compiled = (path: string, substr: unknown, text = true): string =>
      compileCallsSelect({ project_id: 'p', where: where({ $contains: { input: { $getField: path }, substr } }) }, d, {
        backfilled: true,
        covered: text,
      }).sql;
    assert.ok(compiled('inputs.a', { $literal: 'abc' }).includes(table));
    assert.ok(compiled('output', { $literal: 'abc' }).includes(table));
    assert.ok(!compiled('inputs.a', { $literal: 'abc' }, false).includes(table));
    assert.ok(!compiled('attributes.a', { $literal: 'abc' }).includes(table));
    assert.ok(!compiled('inputs.a', { $literal: 'ab' }).includes(table));
  }
});
