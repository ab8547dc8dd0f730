import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { ownAttributes, projectCalls, sendOtel } from './otel-fixture.js';

/** The three-span test vector of docs/spec/otel-service-queues.md §A.10, checked field by field. */

const VECTOR = String.raw`
{
  "resourceSpans": [{
    "resource": {"attributes": [
      {"key": "service.name",  "value": {"stringValue": "trip-planner"}},
      {"key": "wandb.entity",  "value": {"stringValue": "acme"}},
      {"key": "wandb.project", "value": {"stringValue": "otel-demo"}}
    ]},
    "scopeSpans": [{
      "scope": {"name": "demo.tracer", "version": "1.2.0"},
      "spans": [
        {
          "traceId": "7d3f0c2a9b1e4f6a8c5d2e0f1a3b5c7d",
          "spanId": "a1b2c3d4e5f60718",
          "name": "invoke_agent trip_planner",
          "kind": 1,
          "startTimeUnixNano": "1767225600000000000",
          "endTimeUnixNano": "1767225603500000000",
          "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
            {"key": "gen_ai.agent.name", "value": {"stringValue": "trip_planner"}},
            {"key": "wandb.display_name", "value": {"stringValue": "Plan a trip"}},
            {"key": "wandb.thread_id", "value": {"stringValue": "thread-42"}},
            {"key": "wandb.is_turn", "value": {"boolValue": true}},
            {"key": "input.value", "value": {"stringValue": "{\"destination\": \"Lisbon\", \"days\": 2}"}},
            {"key": "output.value", "value": {"stringValue": "Day 1: Alfama. Day 2: Belem."}}
          ],
          "status": {"code": 1}
        },
        {
          "traceId": "7d3f0c2a9b1e4f6a8c5d2e0f1a3b5c7d",
          "spanId": "b2c3d4e5f6071829",
          "parentSpanId": "a1b2c3d4e5f60718",
          "name": "chat gpt-4o-mini",
          "kind": 3,
          "startTimeUnixNano": "1767225600200000000",
          "endTimeUnixNano": "1767225601450000000",
          "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.system", "value": {"stringValue": "openai"}},
            {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o-mini"}},
            {"key": "gen_ai.request.temperature", "value": {"doubleValue": 0.2}},
            {"key": "gen_ai.request.max_tokens", "value": {"intValue": "512"}},
            {"key": "gen_ai.response.model", "value": {"stringValue": "gpt-4o-mini-2024-07-18"}},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "120"}},
            {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "80"}},
            {"key": "gen_ai.prompt.0.role", "value": {"stringValue": "user"}},
            {"key": "gen_ai.prompt.0.content", "value": {"stringValue": "Plan 2 days in Lisbon"}},
            {"key": "gen_ai.completion.0.role", "value": {"stringValue": "assistant"}},
            {"key": "gen_ai.completion.0.content", "value": {"stringValue": "Day 1: Alfama. Day 2: Belem."}}
          ],
          "status": {}
        },
        {
          "traceId": "7d3f0c2a9b1e4f6a8c5d2e0f1a3b5c7d",
          "spanId": "c3d4e5f60718293a",
          "parentSpanId": "a1b2c3d4e5f60718",
          "name": "execute_tool get_weather",
          "kind": 1,
          "startTimeUnixNano": "1767225601500000000",
          "endTimeUnixNano": "1767225601900000000",
          "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
            {"key": "gen_ai.tool.call.id", "value": {"stringValue": "call_7"}},
            {"key": "input", "value": {"stringValue": "{\"city\": \"Lisbon\"}"}}
          ],
          "events": [{
            "timeUnixNano": "1767225601890000000",
            "name": "exception",
            "attributes": [
              {"key": "exception.type", "value": {"stringValue": "TimeoutError"}},
              {"key": "exception.message", "value": {"stringValue": "weather API did not respond"}}
            ]
          }],
          "status": {"code": 2, "message": "TimeoutError: weather API did not respond"}
        }
      ]
    }]
  }]
}
`;

test('§A.10 test vector: three spans become three calls with the mapped fields', async (t) => {
  const h = await buildTestApp(t);
  const res = await sendOtel(h, VECTOR, { contentType: 'application/json' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json(), { partial_success: null });

  const calls = await projectCalls(h, 'acme/otel-demo');
  assert.equal(calls.length, 3);
  const [root, llm, tool] = ['a1b2c3d4e5f60718', 'b2c3d4e5f6071829', 'c3d4e5f60718293a'].map((id) =>
    calls.find((c) => c.id === id)!,
  );
  assert.ok(root !== undefined);
  assert.ok(llm !== undefined);
  assert.ok(tool !== undefined);

  const ops = await h.post('/objs/query', { project_id: 'acme/otel-demo', filter: { is_op: true } });
  const objs = ops.json().objs as Array<{ object_id: string; digest: string }>;
  assert.deepEqual(objs.map((o) => o.object_id).sort(), [
    'chat_gpt-4o-mini',
    'execute_tool_get_weather',
    'invoke_agent_trip_planner',
  ]);
  const digest = objs[0]!.digest;
  assert.ok(
    objs.every((o) => o.digest === digest),
    'all OTel ops share one digest',
  );

  for (const call of calls) {
    assert.equal(call.project_id, 'acme/otel-demo');
    assert.equal(call.trace_id, '7d3f0c2a9b1e4f6a8c5d2e0f1a3b5c7d');
    assert.equal(call.wb_run_id, null);
    assert.equal(typeof call.wb_user_id, 'string');
    assert.deepEqual(call.attributes.otel_span.resource.attributes, {
      service: { name: 'trip-planner' },
      wandb: { entity: 'acme', project: 'otel-demo' },
    });
  }
  const me = (await h.app.services.auth.authenticate(h.aliceKey)).userId;
  assert.equal(root.wb_user_id, me);

  assert.equal(root.parent_id, null);
  assert.equal(llm.parent_id, 'a1b2c3d4e5f60718');
  assert.equal(tool.parent_id, 'a1b2c3d4e5f60718');
  assert.equal(root.op_name, `weave:///acme/otel-demo/op/invoke_agent_trip_planner:${digest}`);
  assert.equal(llm.op_name, `weave:///acme/otel-demo/op/chat_gpt-4o-mini:${digest}`);
  assert.equal(tool.op_name, `weave:///acme/otel-demo/op/execute_tool_get_weather:${digest}`);
  assert.deepEqual([root.display_name, llm.display_name, tool.display_name], ['Plan a trip', null, null]);
  assert.deepEqual([root.thread_id, root.turn_id], ['thread-42', 'a1b2c3d4e5f60718']);
  assert.deepEqual([llm.thread_id, llm.turn_id, tool.thread_id, tool.turn_id], [null, null, null, null]);
  assert.deepEqual(
    [root.started_at, llm.started_at, tool.started_at],
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.200000Z', '2026-01-01T00:00:01.500000Z'],
  );
  assert.deepEqual(
    [root.ended_at, llm.ended_at, tool.ended_at],
    ['2026-01-01T00:00:03.500000Z', '2026-01-01T00:00:01.450000Z', '2026-01-01T00:00:01.900000Z'],
  );

  assert.deepEqual(root.inputs, { 'input.value': { destination: 'Lisbon', days: 2 } });
  // our choice (chat-messages.ts): indexed GenAI messages become an OpenAI-like chat
  assert.deepEqual(llm.inputs, { messages: [{ role: 'user', content: 'Plan 2 days in Lisbon' }] });
  assert.deepEqual(tool.inputs, { city: 'Lisbon' });
  assert.deepEqual(root.output, { 'output.value': 'Day 1: Alfama. Day 2: Belem.' });
  assert.deepEqual(llm.output, {
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Day 1: Alfama. Day 2: Belem.' }, finish_reason: null },
    ],
  });
  assert.deepEqual(tool.output, {});
  assert.deepEqual(
    [root.exception, llm.exception, tool.exception],
    [null, null, 'TimeoutError: weather API did not respond'],
  );

  assert.deepEqual(ownAttributes(root), { agent: 'trip_planner', operation: 'invoke_agent' });
  assert.deepEqual(ownAttributes(llm), {
    system: 'openai',
    model: 'gpt-4o-mini-2024-07-18',
    model_parameters: { model: 'gpt-4o-mini', temperature: 0.2, max_tokens: 512 },
    operation: 'chat',
  });
  assert.deepEqual(ownAttributes(tool), { operation: 'execute_tool' });

  // our choice: spans without token counts have no usage entry of their own (§A.7 writes one of
  // nulls); a parent carries its subtree's (issue 33, src/domain/otel-rollup.ts)
  assert.deepEqual(root.summary.usage, {
    'gpt-4o-mini-2024-07-18': { input_tokens: 120, output_tokens: 80, total_tokens: 200 },
  });
  assert.deepEqual(llm.summary.usage, {
    'gpt-4o-mini-2024-07-18': {
      input_tokens: 120,
      output_tokens: 80,
      prompt_tokens: null,
      completion_tokens: null,
      total_tokens: 200,
      requests: null,
    },
  });
  assert.equal(tool.summary.usage, undefined);

  // issue 33: the failed tool span is counted in the root's status_counts, as Weave marks it
  assert.equal(root.summary.weave.status, 'descendant_error', 'a child error makes the root descendant_error');
  assert.equal(root.summary.weave.latency_ms, 3500);
  assert.equal(root.summary.weave.display_name, 'Plan a trip');
  assert.equal(llm.summary.weave.status, 'success');
  assert.equal(llm.summary.weave.latency_ms, 1250);
  assert.equal(llm.summary.weave.trace_name, 'chat_gpt-4o-mini');
  assert.equal(tool.summary.weave.status, 'error');
  assert.equal(tool.summary.weave.trace_name, 'execute_tool_get_weather');

  const [rootSpan, llmSpan, toolSpan] = [root, llm, tool].map((c) => c.attributes.otel_span);
  assert.equal(rootSpan.kind, 'INTERNAL');
  assert.equal(rootSpan.status.code, 'OK');
  assert.equal(llmSpan.kind, 'CLIENT');
  assert.equal(llmSpan.status.code, 'UNSET');
  assert.deepEqual(llmSpan.attributes.gen_ai.prompt, { '0': { role: 'user', content: 'Plan 2 days in Lisbon' } });
  assert.deepEqual(toolSpan.status, { code: 'ERROR', message: 'TimeoutError: weather API did not respond' });
  assert.equal(toolSpan.events[0].name, 'exception');
  assert.deepEqual(toolSpan.events[0].attributes, {
    exception: { type: 'TimeoutError', message: 'weather API did not respond' },
  });
  assert.equal(toolSpan.events[0].timestamp, '2026-01-01T00:00:01.890000Z');
});
