import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { ok, S1, S2, S3, sendAgents, sharedApp, VECTOR, type VSpan } from './agents-fixture.js';
import { attr } from './otel-fixture.js';

/** docs/spec/agents.md §14 checklist items 30–33: grouped span queries. */

const app = sharedApp();
let h: TestApp;
beforeEach(() => {
  h = app();
});

let n = 0;
const project = (): string => `acme/groups-${++n}`;
const grouped = (p: string, body: Record<string, unknown>) => ok(h, '/agents/spans/query', { project_id: p, ...body });

test('30: grouping the vector by agent_name', async () => {
  const p = project();
  await sendAgents(h, VECTOR, p);
  const res = await grouped(p, { group_by: [{ key: 'agent_name' }] });
  assert.equal(res.total_count, 1);
  const g = res.groups[0];
  assert.deepEqual(g.group_keys, { agent_name: 'trip_planner' });
  assert.deepEqual([g.span_count, g.invocation_count, g.total_input_tokens, g.error_count], [4, 1, 130, 0]);
  assert.deepEqual(g.request_models, ['gpt-4o-mini']);
});

test('31: a dotted custom key needs an alias; spans without it fall in the null group', async () => {
  const p = project();
  const spans: VSpan[] = [
    { spanId: S1, name: 'a', startMs: 0, endMs: 1, attributes: [attr('deploy.region', 'eu')] },
    { spanId: S2, name: 'b', startMs: 1, endMs: 2, attributes: [attr('deploy.region', 'eu')] },
    { spanId: S3, name: 'c', startMs: 2, endMs: 3, attributes: [] },
  ];
  await sendAgents(h, spans, p);
  const ref = { source: 'custom_attrs_string', key: 'deploy.region' };
  assert.equal((await h.post('/agents/spans/query', { project_id: p, group_by: [ref] })).statusCode, 400);
  const res = await grouped(p, { group_by: [{ ...ref, alias: 'region' }], sort_by: [{ field: 'span_count' }] });
  assert.deepEqual(
    res.groups.map((g: any) => [g.group_keys, g.span_count]),
    [
      [{ region: 'eu' }, 2],
      [{ region: null }, 1],
    ],
  );
});

test('32: a filtered count measure orders groups; group_filters keep groups by a measure', async () => {
  const p = project();
  const other: VSpan[] = [
    {
      spanId: 'eeeeeeeeeeeeeeee',
      name: 'invoke_agent other',
      startMs: 0,
      endMs: 1,
      attributes: [attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', 'other')],
      traceId: 'e'.repeat(32),
    },
  ];
  await sendAgents(h, [...VECTOR, ...other], p);
  const llm = {
    alias: 'llm',
    aggregation: 'count',
    filter: { $expr: { $eq: [{ $getField: 'operation_name' }, { $literal: 'chat' }] } },
  };
  const res = await grouped(p, { group_by: [{ key: 'agent_name' }], measures: [llm] });
  assert.deepEqual(
    res.groups.map((g: any) => [g.group_keys.agent_name, g.metrics.llm]),
    [
      ['trip_planner', 2],
      ['other', 0],
    ],
  );
  const kept = await grouped(p, {
    group_by: [{ key: 'agent_name' }],
    measures: [llm],
    group_filters: [{ measure: llm, min: 3 }],
  });
  assert.deepEqual([kept.groups, kept.total_count], [[], 0]);
  const some = await grouped(p, { group_by: [{ key: 'agent_name' }], group_filters: [{ measure: llm, min: 1 }] });
  assert.deepEqual(
    some.groups.map((g: any) => g.group_keys.agent_name),
    ['trip_planner'],
  );
});

test('33: grouping by conversation gives first and last message previews', async () => {
  const p = project();
  const long = 'word '.repeat(80).trim();
  const other: VSpan = {
    spanId: 'eeeeeeeeeeeeeeee',
    name: 'invoke_agent a',
    startMs: 0,
    endMs: 1,
    attributes: [
      attr('gen_ai.conversation.id', 'long'),
      attr('gen_ai.input.messages', 'question'),
      attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', content: long }])),
    ],
    traceId: 'e'.repeat(32),
  };
  await sendAgents(h, [...VECTOR, other], p);
  const res = await grouped(p, { group_by: [{ key: 'conversation_id' }] });
  const byId = new Map(res.groups.map((g: any) => [g.group_keys.conversation_id, g]));
  const conv: any = byId.get('conv-42');
  assert.deepEqual(conv.first_message, { role: 'user_message', text: 'Weather in Lisbon?' });
  assert.deepEqual(conv.last_message, { role: 'assistant_message', text: 'Sunny, 24°C.' });
  const cut: any = byId.get('long');
  assert.equal(cut.last_message.text, `${long.slice(0, 280).trimEnd()}…`);
});

test('34: distributions: equal-width bins for numbers, top values for strings', async () => {
  const p = project();
  const s = (i: number, attributes: ReturnType<typeof attr>[]): VSpan => ({
    spanId: `${i}`.repeat(16),
    name: 'x',
    startMs: i,
    endMs: i + 1,
    attributes: [attr('gen_ai.agent.name', 'a'), ...attributes],
    traceId: `${i}`.repeat(32),
  });
  await sendAgents(
    h,
    [
      s(1, [attr('latency_ms', 1.0001), attr('tier', 'a')]),
      s(2, [attr('latency_ms', 2.5), attr('tier', 'a')]),
      s(3, [attr('latency_ms', 3.0001), attr('tier', 'b')]),
    ],
    p,
  );
  const res = await grouped(p, {
    group_by: [{ key: 'agent_name' }],
    group_distributions: [
      { alias: 'lat', value: { source: 'custom_attrs_float', key: 'latency_ms' }, bins: 2 },
      { alias: 'tier', value: { source: 'custom_attrs_string', key: 'tier' }, top_n: 1 },
    ],
  });
  const d = res.groups[0].distributions;
  assert.deepEqual(
    d.lat.bins.map((b: any) => [b.index, b.count]),
    [
      [0, 1],
      [1, 2],
    ],
  );
  assert.deepEqual([d.lat.bins[0].min, d.lat.bins[1].max], [1.0001, 3.0001]);
  assert.deepEqual([d.tier.values, d.tier.other_count], [[{ value: 'a', count: 2 }], 1]);
});
