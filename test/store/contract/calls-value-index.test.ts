import assert from 'node:assert/strict';
import { test } from 'node:test';
import { valueLeaves, type ValueColumn } from '../../../src/domain/value-leaves.js';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, sort, start, where } from './parts.js';
import { rng } from './rollup-fixture.js';

/**
 * `$eq` of an `inputs`, `output` or `attributes` field with a string asks the `call_values` index
 * (migration 016) for candidates when the index can answer; the call indexer fills it
 * (call-indexes/text-index.ts, migration 018; the leaves of `output` and `attributes` since their fills,
 * call-indexes/entry-fills.ts), so the candidates also hold the calls after the project's mark. Each case compares the
 * indexed query with the same test written as an `$in` (which the compiler answers by a scan), its
 * count, and the ids that must match: before the indexer ran, part way, when done, and after calls
 * changed.
 */
forEachAdapter('calls equality through the value index', (store) => {
  const field = (path: string) => ({ $getField: path });
  const lit = (value: unknown) => ({ $literal: value });
  const both = async (s: TraceStore, project: string, path: string, value: string) => {
    const q = (expr: unknown): CallsQuery => ({ project_id: project, where: where(expr) });
    const indexed = (await ids(s, q({ $eq: [field(path), lit(value)] }))).sort();
    const scanned = (await ids(s, q({ $in: [field(path), [lit(value), lit(value)]] }))).sort();
    const counted = (await s.calls.count(q({ $eq: [field(path), lit(value)] }))).count;
    assert.deepEqual(indexed, scanned, `${path} == ${JSON.stringify(value)}`);
    assert.equal(Number(counted), indexed.length);
    return indexed;
  };
  const inputs = (value: unknown): string => JSON.stringify(value);
  const indexAll = async (s: TraceStore): Promise<void> => {
    while ((await s.callText.step(7)).project !== null);
  };
  /** Runs `checks` before the indexer ran, part way through the project, and when it is done. */
  const throughIndexing = async (s: TraceStore, p: string, checks: () => Promise<void>): Promise<void> => {
    assert.equal(await s.callText.covers(p), false);
    await checks();
    for (let i = 0; i < 3; i++) await s.callText.step(2);
    await checks();
    await indexAll(s);
    assert.equal(await s.callText.covers(p), true);
    await checks();
  };

  test(
    'one and two keys deep, numbers and JSON-looking strings, long strings, arrays',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const long = 'x'.repeat(200);
      await s.calls.write([
        start(p, 'a', { inputs: inputs({ user: 'u-1', cfg: { model: 'gpt', deep: { x: 'u-1' } }, n: 5 }) }),
        start(p, 'b', { inputs: inputs({ user: 'u-2', cfg: { model: 'gpt' }, n: '5', text: long }) }),
        start(p, 'c', { inputs: inputs({ user: ['u-1'], cfg: 'gpt', list: [{ model: 'gpt' }], 'a.b': 'dot' }) }),
        start(p, 'd', { inputs: inputs({ user: null, 'odd key': 'u-1', obj: { k: 1 } }) }),
        start(p, 'e', { inputs: '{}' }),
      ]);
      await throughIndexing(s, p, async () => {
        assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['a']);
        assert.deepEqual(await both(s, p, 'inputs.cfg.model', 'gpt'), ['a', 'b']);
        assert.deepEqual(await both(s, p, 'inputs.cfg', 'gpt'), ['c']);
        // three keys deep is past the index: the scan answers
        assert.deepEqual(await both(s, p, 'inputs.cfg.deep.x', 'u-1'), ['a']);
        // a number matches its text; strings that read as JSON never take the index
        assert.deepEqual(await both(s, p, 'inputs.n', '5'), ['a', 'b']);
        assert.deepEqual(await both(s, p, 'inputs.obj', '{"k":1}'), ['d']);
        // '' is also what a null or missing value renders as
        assert.deepEqual(await both(s, p, 'inputs.user', ''), ['d', 'e']);
        assert.deepEqual(await both(s, p, 'inputs.text', long), ['b']);
        assert.deepEqual(await both(s, p, 'inputs.list.0.model', 'gpt'), ['c']);
        assert.deepEqual(await both(s, p, 'inputs.odd key', 'u-1'), ['d']);
        assert.deepEqual(await both(s, p, 'inputs.a.b', 'dot'), []);
      });
    }),
  );

  test(
    'output and attribute fields: one and two keys deep, outputs that are not objects, ends sent again',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const json = (value: unknown): string => JSON.stringify(value);
      await s.calls.write([
        start(p, 'a', { attributes: json({ env: 'prod', app: { region: 'eu' }, weave: { client_version: '0.51' } }) }),
        end(p, 'a', { output: json({ label: 'spam', scores: { top: 'spam' }, n: 3 }) }),
        start(p, 'b', { attributes: json({ env: 'dev', app: { region: 'eu', deep: { x: 'eu' } } }) }),
        end(p, 'b', { output: json('spam') }),
        start(p, 'c', { attributes: json({ env: ['prod'] }), inputs: json({ label: 'spam' }) }),
        end(p, 'c', { output: json({ label: 'ham', scores: { top: 'spam' } }) }),
        start(p, 'd'),
      ]);
      await throughIndexing(s, p, async () => {
        assert.deepEqual(await both(s, p, 'output.label', 'spam'), ['a']);
        assert.deepEqual(await both(s, p, 'output.scores.top', 'spam'), ['a', 'c']);
        assert.deepEqual(await both(s, p, 'output.n', '3'), ['a']);
        assert.deepEqual(await both(s, p, 'attributes.env', 'prod'), ['a']);
        assert.deepEqual(await both(s, p, 'attributes.app.region', 'eu'), ['a', 'b']);
        assert.deepEqual(await both(s, p, 'attributes.app.deep.x', 'eu'), ['b']);
        assert.deepEqual(await both(s, p, 'attributes.weave.client_version', '0.51'), ['a']);
        assert.deepEqual(await both(s, p, 'inputs.label', 'spam'), ['c']);
      });
      // an end sent again with another output: the call is in the tail until the indexer writes it again
      await s.calls.write([
        end(p, 'a', { output: json({ label: 'ham' }) }),
        end(p, 'd', { output: json({ label: 'spam' }) }),
      ]);
      assert.deepEqual(await both(s, p, 'output.label', 'spam'), ['d']);
      assert.deepEqual(await both(s, p, 'output.label', 'ham'), ['a', 'c']);
      while ((await s.callText.step(7)).project !== null);
      assert.deepEqual(await both(s, p, 'output.label', 'spam'), ['d']);
      assert.deepEqual(await both(s, p, 'output.label', 'ham'), ['a', 'c']);
    }),
  );

  test(
    'ends before starts, starts sent again with other inputs, deleted calls, other projects',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      await s.calls.write([end(p, 'late'), start(other, 'o', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.write([start(p, 'late', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.write([start(p, 'moved', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.write([start(p, 'moved', { inputs: inputs({ user: 'u-9' }) })]);
      await s.calls.write([start(p, 'gone', { inputs: inputs({ user: 'u-1' }) })]);
      await s.calls.deleteCascade(p, ['gone'], 1_800_000_000_000_000);
      await throughIndexing(s, p, async () => {
        assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['late']);
        assert.deepEqual(await both(s, p, 'inputs.user', 'u-9'), ['moved']);
        assert.deepEqual(await both(s, other, 'inputs.user', 'u-1'), ['o']);
      });
      // after the indexer: a start sent again moves its call to the tail, its old leaf stays
      await s.calls.write([start(p, 'moved', { inputs: inputs({ user: 'u-1' }) }), end(p, 'fresh')]);
      await s.calls.write([start(p, 'fresh', { inputs: inputs({ user: 'u-9' }) })]);
      await s.calls.write([start(p, 'late', { inputs: inputs({ user: 'u-2' }) })]);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['moved']);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-9'), ['fresh']);
      await indexAll(s);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['moved']);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-9'), ['fresh']);
      assert.deepEqual(await both(s, p, 'inputs.user', 'u-2'), ['late']);
    }),
  );

  test(
    'a project dump made before migration 016 (no latency_ms, no call_values) imports with both',
    guard(async () => {
      const s = store();
      const p = freshProject();
      await s.calls.write([
        start(p, 'a', { inputs: inputs({ user: 'u-1' }), started_at: 1_000_000 }),
        end(p, 'a', { ended_at: 1_005_000 }),
        start(p, 'b', { inputs: inputs({ user: 'u-1' }), started_at: 2_000_000 }),
        end(p, 'b', { ended_at: 2_009_000 }),
        start(p, 'c', { inputs: inputs({ user: 'u-2' }), started_at: 3_000_000 }),
      ]);
      const rows = [];
      for await (const item of s.projectData.exportRows(p)) {
        if (item.table === 'call_values') continue;
        if (item.table === 'calls') delete item.row.latency_ms;
        rows.push(item);
      }
      await s.projectData.deleteProject(p);
      await s.projectData.importRows(
        p,
        (async function* () {
          yield* rows;
        })(),
      );
      // the imported calls have no change_seq: scanned until the indexer has written their leaves
      await throughIndexing(s, p, async () => {
        assert.deepEqual(await both(s, p, 'inputs.user', 'u-1'), ['a', 'b']);
      });
      const byLatency = await ids(s, {
        project_id: p,
        sort_by: sort([{ field: 'summary.weave.latency_ms', direction: 'desc' }]),
      });
      assert.deepEqual(byLatency, ['b', 'a', 'c']);
    }),
  );

  test(
    'random values: the same answers as the scan through indexing and changes; the leaves are valueLeaves',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const rnd = rng(18_016);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
      const VALUES = ['u-1', 'u-2', 'é', 'a"b', 'x\\y', '5x', ' ', 'z'.repeat(128), 'z'.repeat(129), '😀'.repeat(100)];
      const value = (): unknown => (rnd() < 0.8 ? pick(VALUES) : pick([5, true, null, ['u-1'], { k: 'u-1' }]));
      const randomInputs = (): string =>
        JSON.stringify(
          rnd() < 0.1
            ? pick([['u-1'], 'u-1', 5])
            : { user: value(), cfg: { model: value(), deep: { x: value() } }, [pick(['a', 'b', 'weave'])]: value() },
        );
      // each call's current inputs, attributes (written by its start) and output (by its end)
      const current = new Map<string, Record<ValueColumn, string>>();
      const started = (id: string): CallPart => {
        const values = {
          inputs: randomInputs(),
          attributes: randomInputs(),
          output: current.get(id)?.output ?? 'null',
        };
        current.set(id, values);
        return start(p, id, { inputs: values.inputs, attributes: values.attributes });
      };
      const ended = (id: string): CallPart => {
        const output = randomInputs();
        const values = current.get(id);
        if (values !== undefined) values.output = output;
        else current.set(id, { inputs: '{}', attributes: '{}', output });
        return end(p, id, { output });
      };
      const parts: CallPart[] = [];
      for (let i = 0; i < 40; i++) {
        const id = `c-${String(i).padStart(2, '0')}`;
        parts.push(started(id));
        if (i % 2 === 0) parts.push(ended(id));
      }
      for (let i = 0; i < parts.length; i += 15) await s.calls.write(parts.slice(i, i + 15));
      const paths = ['inputs.user', 'inputs.cfg.model', 'inputs.a', 'inputs.b', 'inputs.cfg', 'inputs.cfg.deep.x'];
      paths.push(...['output.user', 'output.cfg.model', 'attributes.a', 'attributes.cfg.deep.x']);
      // the client's metadata under attributes.weave is not indexed (value-leaves.ts): those scan
      paths.push(...['inputs.weave', 'inputs.weave.k', 'attributes.weave', 'attributes.weave.k']);
      const checks = async (): Promise<void> => {
        for (const path of paths) for (const v of VALUES) await both(s, p, path, v);
      };
      const leaves = async (): Promise<Set<string>> => {
        const out = new Set<string>();
        for await (const item of s.projectData.exportRows(p)) {
          if (item.table !== 'call_values') continue;
          const row = item.row as { path: string; value: string; call_id: string };
          out.add(JSON.stringify([row.call_id, row.path, row.value]));
        }
        return out;
      };
      const expectedLeaves = (): Set<string> => {
        const out = new Set<string>();
        for (const [id, values] of current) {
          for (const column of ['inputs', 'output', 'attributes'] as const) {
            const flat = valueLeaves(column, JSON.parse(values[column]));
            for (let i = 0; i < flat.length; i += 2) out.add(JSON.stringify([id, flat[i], flat[i + 1]]));
          }
        }
        return out;
      };
      assert.equal((await leaves()).size, 0, 'the writers store no leaves');
      await throughIndexing(s, p, checks);
      assert.deepEqual(await leaves(), expectedLeaves());

      // starts sent again with other inputs, ends, deletions, new calls, an end before its start
      const changes: CallPart[] = [];
      for (let i = 0; i < 40; i += 3) {
        changes.push(started(`c-${String(i).padStart(2, '0')}`), ended(`c-${String(i + 1).padStart(2, '0')}`));
      }
      changes.push(ended('new-late'));
      for (let i = 0; i < 5; i++) changes.push(started(`new-${i}`));
      await s.calls.write(changes);
      await s.calls.deleteCascade(p, ['c-05', 'c-07'], 1_800_000_000_000_000);
      await checks();
      for (let i = 0; i < 2; i++) await s.callText.step(3);
      await checks();
      await s.calls.write([started('new-late')]);
      await indexAll(s);
      await checks();
      // every current leaf is there; stale ones of re-sent starts stay (they only add candidates).
      // PostgreSQL's indexer passes only writes below the cluster's oldest running transaction, which
      // another database's work may hold back for a moment
      const missing = async (): Promise<string[]> => {
        const stored = await leaves();
        return [...expectedLeaves()].filter((leaf) => !stored.has(leaf));
      };
      for (let waited = 0; (await missing()).length > 0 && waited < 10_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await indexAll(s);
      }
      assert.deepEqual(await missing(), []);
    }),
  );
});

test('equality asks call_values only for a project the call indexer covers', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = {
      project_id: 'p',
      where: where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] }),
    };
    const covered = compileCallsSelect(q, d, { backfilled: false, covered: true }).sql;
    assert.match(covered, /call_values/);
    // the calls after the mark, and all calls without a covering mark, are candidates too
    assert.match(covered, /call_text_marks/);
    assert.doesNotMatch(compileCallsSelect(q, d, { backfilled: true, covered: false }).sql, /call_values/);
  }
});

test('output and attribute equalities ask call_values once their fill is done, and check it themselves', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    for (const [path, fill] of [
      ['output.label', 'output_values'],
      ['attributes.app.region', 'attribute_values'],
    ] as const) {
      const q: CallsQuery = { project_id: 'p', where: where({ $eq: [{ $getField: path }, { $literal: 'x' }] }) };
      const filled = compileCallsSelect(q, d, { backfilled: false, covered: true }).sql;
      assert.match(filled, /call_values/);
      // every call is a candidate while the statement's own read finds the fill not done
      assert.match(filled, new RegExp(`call_entry_fills[^]*'${fill}'`));
      const pending = compileCallsSelect(q, d, { backfilled: false, covered: true, pending: [fill] }).sql;
      assert.doesNotMatch(pending, /call_values/);
      const other = compileCallsSelect(q, d, { backfilled: false, covered: true, pending: ['status'] }).sql;
      assert.match(other, /call_values/);
    }
  }
});
