import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptySpan } from '../../../src/services/agents/agent-start.js';
import type { AgentSpanRecord, AgentSpanStore } from '../../../src/store/agent-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/**
 * The agent span store on every adapter (docs/spec/agents.md §2.6, §3.2, §7, §8): replacement by
 * key, attribution recomputed across writes, the live start, deletion with descendants, roll-ups,
 * search and tenancy by project.
 */

const TRACE = 'a'.repeat(32);

function rec(projectId: string, spanId: string, fields: Partial<AgentSpanRecord> = {}): AgentSpanRecord {
  return emptySpan({ project_id: projectId, trace_id: TRACE, span_id: spanId, started_at: 1_000_000, ...fields });
}

const all = (s: AgentSpanStore, projectId: string) =>
  s.spans({ projectId, filter: null, startedAfter: null, startedBefore: null, sort: [], limit: 100, offset: 0 });

forEachAdapter('agent span store', (store) => {
  const s = (): AgentSpanStore => store().agentSpans;

  test(
    'a later write replaces the row and its occurrences; attribution follows spans written later',
    guard(async () => {
      const p = freshProject();
      const child = rec(p, '2'.repeat(16), { parent_span_id: '1'.repeat(16), started_at: 2_000_000 });
      child.details.tool_call_arguments = 'first';
      await s().write([child]);
      let rows = (await all(s(), p)).rows;
      assert.deepEqual([rows[0]?.attr_agent_name, rows[0]?.attr_conversation_id], ['', '']);
      // the parent arrives in a later batch: the child is attributed to it
      await s().write([rec(p, '1'.repeat(16), { agent_name: 'planner', agent_version: '2', conversation_id: 'c' })]);
      rows = (await all(s(), p)).rows;
      const byId = new Map(rows.map((r) => [r.span_id, r]));
      assert.deepEqual(
        [byId.get(child.span_id)?.attr_agent_name, byId.get(child.span_id)?.attr_agent_version],
        ['planner', '2'],
      );
      assert.equal(byId.get(child.span_id)?.attr_conversation_id, 'c');
      assert.equal(byId.get(child.span_id)?.agent_name, '', 'the own column stays raw');
      const replaced = rec(p, child.span_id, { parent_span_id: '1'.repeat(16), started_at: 2_000_000 });
      replaced.details.tool_call_arguments = 'second';
      await s().write([replaced]);
      const found = await s().search({
        projectId: p,
        text: '',
        traceId: null,
        conversationId: null,
        agentName: null,
        providerName: null,
        requestModel: null,
        roles: ['tool_call'],
        startedAfter: null,
        startedBefore: null,
        limit: 10,
        offset: 0,
      });
      assert.deepEqual(
        found.map((h) => [h.content, h.conversation_id, h.agent_name]),
        [['second', 'c', 'planner']],
      );
    }),
  );

  test(
    'start stores an open span once; deleteBySpanIds removes descendants; other projects untouched',
    guard(async () => {
      const [p, q] = [freshProject(), freshProject()];
      assert.equal(await s().start(rec(p, '1'.repeat(16), { agent_name: 'a' })), true);
      assert.equal(await s().start(rec(p, '1'.repeat(16), { agent_name: 'b' })), false);
      await s().write([rec(p, '2'.repeat(16), { parent_span_id: '1'.repeat(16) })]);
      await s().write([rec(p, '3'.repeat(16), { parent_span_id: '2'.repeat(16) }), rec(p, '4'.repeat(16))]);
      await s().write([rec(q, '1'.repeat(16), { agent_name: 'a' })]);
      const before = (await all(s(), p)).rows.find((r) => r.span_id === '1'.repeat(16));
      assert.deepEqual([before?.agent_name, before?.ended_at], ['a', null]);
      await s().deleteBySpanIds(p, ['1'.repeat(16)]);
      assert.deepEqual(
        (await all(s(), p)).rows.map((r) => r.span_id),
        ['4'.repeat(16)],
      );
      assert.equal((await all(s(), q)).total, 1);
    }),
  );

  test(
    'agents roll up own agent names; versions per agent; conversation turns and spans',
    guard(async () => {
      const p = freshProject();
      const span = (id: string, trace: string, fields: Partial<AgentSpanRecord>) =>
        emptySpan({ project_id: p, trace_id: trace, span_id: id, started_at: 0, ...fields });
      await s().write([
        span('1'.repeat(16), 'b'.repeat(32), {
          agent_name: 'a',
          agent_version: '1',
          operation_name: 'invoke_agent',
          conversation_id: 'c',
          started_at: 1_000_000,
          ended_at: 3_000_000,
          input_tokens: 5,
        }),
        span('2'.repeat(16), 'c'.repeat(32), {
          agent_name: 'a',
          agent_version: '2',
          status_code: 'ERROR',
          conversation_id: 'c',
          started_at: 5_000_000,
        }),
        span('3'.repeat(16), 'c'.repeat(32), { started_at: 6_000_000, input_tokens: 100 }),
      ]);
      const agents = await s().agents({
        projectId: p,
        agentName: null,
        byVersion: false,
        sort: [],
        limit: 10,
        offset: 0,
      });
      assert.deepEqual(agents.rows, [
        {
          agent_name: 'a',
          agent_version: '',
          invocation_count: 1,
          span_count: 2,
          total_input_tokens: 5,
          total_output_tokens: 0,
          total_duration_ms: 2000,
          error_count: 1,
          first_seen: 1_000_000,
          last_seen: 5_000_000,
        },
      ]);
      const versions = await s().agents({
        projectId: p,
        agentName: 'a',
        byVersion: true,
        sort: [],
        limit: 10,
        offset: 0,
      });
      assert.deepEqual(
        versions.rows.map((r) => r.agent_version),
        ['2', '1'],
      );
      const turns = await s().conversationTurns(p, 'c', 1, 0);
      assert.deepEqual([turns.traces.map((t) => t.trace_id), turns.total], [['c'.repeat(32)], 2]);
      const spans = await s().conversationSpans(p, 'c', null, null, 500);
      assert.deepEqual(
        spans.map((r) => r.span_id),
        ['1'.repeat(16), '2'.repeat(16)],
      );
    }),
  );
  test(
    'totals of the agents list and of grouped spans are right on every page: partial, full and past the end',
    guard(async () => {
      const p = freshProject();
      await s().write(
        ['a', 'b', 'c'].map((name, i) =>
          rec(p, String(i + 1).repeat(16), { trace_id: String(i + 1).repeat(32), agent_name: name }),
        ),
      );
      const agents = (limit: number, offset: number) =>
        s().agents({ projectId: p, agentName: null, byVersion: false, sort: [], limit, offset });
      const groups = (limit: number, offset: number) =>
        s().groups({
          projectId: p,
          filter: null,
          startedAfter: null,
          startedBefore: null,
          groupBy: [{ alias: 'agent_name', field: { kind: 'column', column: 'agent_name', type: 'string' } }],
          measures: [],
          having: [],
          sort: [],
          limit,
          offset,
        });
      for (const [limit, offset, rows] of [
        [10, 0, 3],
        [2, 0, 2],
        [3, 0, 3],
        [2, 2, 1],
        [2, 3, 0],
        [2, 9, 0],
      ] as const) {
        const a = await agents(limit, offset);
        const g = await groups(limit, offset);
        assert.deepEqual([a.rows.length, a.total], [rows, 3], `agents limit ${limit} offset ${offset}`);
        assert.deepEqual([g.rows.length, g.total], [rows, 3], `groups limit ${limit} offset ${offset}`);
      }
    }),
  );
  test(
    'message search answers as a scan of every message: replaced and deleted messages are gone, any needle',
    guard(async () => {
      const [p, q] = [freshProject(), freshProject()];
      const texts = [
        'Weather in Lisbon is 21 C',
        'weather in lisbon',
        'a"b and 50%_off \\ done',
        'dots ... and more',
        'café 中文 naïve',
        'city 42 then city 420',
        'short',
        'will be replaced',
        'will be deleted',
      ];
      // one conversation per message, so the collapse of §8 keeps every hit
      const span = (project: string, i: number, content: string) => {
        const r = rec(project, String(i + 1).padStart(16, '0'), {
          trace_id: String(i + 1).padStart(32, '0'),
          conversation_id: `c${i}`,
          started_at: 1_000_000 + i,
        });
        r.details.input_messages = [{ role: 'user', content, finish_reason: '' }];
        return r;
      };
      await s().write(texts.map((t, i) => span(p, i, t)));
      await s().write([span(q, 0, 'Lisbon elsewhere')]);
      await s().write([span(p, 7, 'now replaced')]);
      await s().deleteBySpanIds(p, [String(9).padStart(16, '0')]);
      const stored = texts.map((t, i) => (i === 7 ? 'now replaced' : t)).filter((_, i) => i !== 8);
      const search = async (text: string) =>
        (
          await s().search({
            projectId: p,
            text,
            traceId: null,
            conversationId: null,
            agentName: null,
            providerName: null,
            requestModel: null,
            roles: null,
            startedAfter: null,
            startedBefore: null,
            limit: 100,
            offset: 0,
          })
        )
          .map((h) => h.content)
          .sort();
      for (const needle of [
        'Lisbon',
        'lisbon',
        'isbo',
        'is',
        'a"b',
        '50%_',
        '\\ d',
        '...',
        'é 中',
        '中文',
        'city 42',
        'y 420',
        'replaced',
        'will be',
        'deleted',
        'elsewhere',
        'absent text',
      ])
        assert.deepEqual(await search(needle), stored.filter((t) => t.includes(needle)).sort(), `needle ${needle}`);
    }),
  );
});
