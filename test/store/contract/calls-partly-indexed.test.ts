import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, indexAll, sort, start, where } from './parts.js';

/**
 * Issue 30: while the call indexer is part-way through a project (some calls indexed, a tail not
 * yet, calls rewritten after it passed them), every query of the traces table answers exactly what
 * it answers before the indexer ran (the plain plans) and after it caught up: the same ids in the
 * same order, the same counts. The queries are those of bench/lib/scale-workload.ts.
 */

const USERS = 7;
const at = (i: number): number => 1_700_000_000_000_000 + i * 1_000_003;

/** Call `i` of a trace of three (a root and two children), with fields the queries filter and sort on. */
function callParts(project: string, i: number, round = 0): CallPart[] {
  const id = `c-${String(i).padStart(3, '0')}`;
  const root = i % 3 === 0;
  const tokens = ((i * 37) % 101) + round;
  const parts: CallPart[] = [
    start(project, id, {
      op_name: `weave:///acme/demo/op/${['agent', 'retrieve', 'chat'][i % 3]}:v${round}`,
      op_display_name: ['agent', 'retrieve', 'chat'][i % 3]!,
      display_name: i % 4 === 0 ? `run-${(i * 13) % 17}` : null,
      trace_id: `t-${Math.floor(i / 3)}`,
      parent_id: root ? null : `c-${String(i - (i % 3)).padStart(3, '0')}`,
      started_at: at(i),
      inputs: JSON.stringify({ user_id: `user-${(i * 5 + round) % USERS}`, q: `question ${i} r-${i % 11}` }),
      attributes: JSON.stringify({ user_id: `user-${i % USERS}` }),
    }),
  ];
  if (i % 5 !== 4)
    parts.push(
      end(project, id, {
        ended_at: at(i) + 1_000 + ((i * 7_919 + round) % 50_000),
        exception: i % 6 === 1 ? 'boom' : null,
        output: JSON.stringify({ ticket: `ticket-${(i + round) % 5}`, answer: `answer ${i}` }),
        summary: JSON.stringify({
          usage: {
            'gpt-4o-mini': { requests: 1, prompt_tokens: tokens, completion_tokens: 1, total_tokens: tokens + 1 },
          },
        }),
      }),
    );
  return parts;
}

/** The traces table's queries, each with a first page or a count. */
function queries(project: string): Array<{ name: string; q: CallsQuery; count?: boolean }> {
  const eq = (field: string, value: string) => where({ $eq: [{ $getField: field }, { $literal: value }] });
  const contains = (field: string, substr: string, ci = false) =>
    ({ $contains: { input: { $getField: field }, substr: { $literal: substr }, case_insensitive: ci } }) as const;
  const newest = sort([{ field: 'started_at', direction: 'desc' }]);
  const roots = { trace_roots_only: true };
  const page = (name: string, q: Omit<CallsQuery, 'project_id'>) => ({
    name,
    q: { project_id: project, limit: 10, ...q },
  });
  const search = where({ $or: [contains('inputs', 'R-3', true), contains('output', 'R-3', true)] });
  const isError = eq('summary.weave.status', 'error');
  const by = (field: string, direction: 'asc' | 'desc') => sort([{ field, direction }]);
  return [
    page('input-field filter', { where: eq('inputs.user_id', 'user-3'), sort_by: newest }),
    { ...page('its count', { where: eq('inputs.user_id', 'user-3') }), count: true },
    page('output-field filter', { where: eq('output.ticket', 'ticket-2'), sort_by: newest }),
    page('attribute-field filter', { where: eq('attributes.user_id', 'user-4'), sort_by: newest }),
    page('latency desc', { sort_by: by('summary.weave.latency_ms', 'desc') }),
    page('latency asc, roots only', { filter: roots, sort_by: by('summary.weave.latency_ms', 'asc') }),
    { ...page('count of all', {}), count: true },
    page('$contains', { where: where(contains('inputs.q', 'r-3')), sort_by: newest }),
    page('roots newest first', { filter: roots, sort_by: newest }),
    page('search box', { where: search, sort_by: newest }),
    { ...page('search box count', { where: search }), count: true },
    page('status filter', { where: isError, sort_by: newest }),
    page('sort by status', { sort_by: by('summary.weave.status', 'asc') }),
    { ...page('status count, capped', { where: isError, limit: 3 }), count: true },
    page('op name', { sort_by: by('op_name', 'asc') }),
    page('display name', { sort_by: by('display_name', 'asc') }),
    page('display name, roots only', { filter: roots, sort_by: by('display_name', 'asc') }),
    page('tokens desc', { sort_by: by('summary.weave.total_tokens', 'desc') }),
    page('tokens asc', { sort_by: by('summary.weave.total_tokens', 'asc') }),
    page('tokens desc, roots only', { filter: roots, sort_by: by('summary.weave.total_tokens', 'desc') }),
    page('cost desc', { sort_by: by('summary.weave.total_cost', 'desc') }),
    page('trace name desc', { sort_by: by('summary.weave.trace_name', 'desc') }),
    page('trace name desc, roots only', { filter: roots, sort_by: by('summary.weave.trace_name', 'desc') }),
  ];
}

async function answers(s: TraceStore, project: string): Promise<Record<string, string[] | number>> {
  const out: Record<string, string[] | number> = {};
  for (const { name, q, count } of queries(project))
    out[name] = count ? Number((await s.calls.count(q)).count) : await ids(s, q);
  return out;
}

forEachAdapter('calls part-way through the call indexer', (store) => {
  test(
    'every traces-table query answers the same before, during and after indexing',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const parts: CallPart[] = [];
      for (let i = 0; i < 90; i++) parts.push(...callParts(p, i));
      // several writes, so the project's calls have several change_seq values
      for (let i = 0; i < parts.length; i += 40) await s.calls.write(parts.slice(i, i + 40));
      const before = await answers(s, p);
      assert.ok((before['input-field filter'] as string[]).length > 0, 'the filter finds calls');
      assert.ok((before['status filter'] as string[]).length > 0, 'some calls failed');
      assert.ok((before['$contains'] as string[]).length > 0, 'the substring is there');

      // part-way: a few steps of 9 calls, then a rewrite of calls the indexer has passed and of some it has not
      for (let k = 0; k < 3; k++) {
        const step = await s.callText.step(9);
        assert.equal(step.project, p);
        assert.deepEqual(await answers(s, p), before, `after ${k + 1} steps`);
      }
      const rewritten: CallPart[] = [];
      for (const i of [1, 4, 30, 61, 88]) rewritten.push(...callParts(p, i, 1));
      await s.calls.write(rewritten);
      const changed = await answers(s, p);
      assert.notDeepEqual(changed, before, 'the rewrite changes some answers');
      await s.callText.step(9);
      assert.deepEqual(await answers(s, p), changed, 'part-way after the rewrite');
      await indexAll(s, 9);
      assert.equal(await s.callText.covers(p), true);
      assert.deepEqual(await answers(s, p), changed, 'indexed');
      // the same calls in a project the indexer has not reached: what the plain plans answer
      const scanned = freshProject();
      for (const part of [...parts, ...rewritten]) await s.calls.write([{ ...part, project_id: scanned }]);
      assert.equal(await s.callText.covers(scanned), false);
      assert.deepEqual(await answers(s, scanned), changed, 'the plain plans');
    }),
  );
});
