import assert from 'node:assert/strict';
import { test } from 'node:test';
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpHttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * The official OpenTelemetry JS exporters (protobuf and JSON over OTLP/HTTP, pinned in
 * package.json) sending nested GenAI spans to a real Heddle process (docs/spec/otel-service-queues.md §A); the calls are
 * read back through /calls/stream_query.
 */

async function exportNestedTrace(
  exporter: SpanExporter,
  project: string,
): Promise<{ traceId: string; rootId: string; childId: string }> {
  const [entity, name] = project.split('/');
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'e2e', 'wandb.entity': entity, 'wandb.project': name }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer: Tracer = provider.getTracer('heddle-e2e', '1.0.0');
  // no global context manager here: the parent is passed explicitly
  const root = tracer.startSpan('invoke_agent planner', { kind: SpanKind.INTERNAL });
  root.setAttributes({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'planner',
    'wandb.display_name': 'Plan',
    'wandb.thread_id': 'th-1',
    'wandb.is_turn': true,
    'input.value': '{"goal": "trip"}',
  });
  const child = tracer.startSpan('chat gpt-4o-mini', { kind: SpanKind.CLIENT }, trace.setSpan(context.active(), root));
  child.setAttributes({
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
    'gen_ai.request.temperature': 0.5,
    'gen_ai.usage.input_tokens': 120,
    'gen_ai.usage.output_tokens': 80,
    'gen_ai.prompt.0.role': 'user',
    'gen_ai.prompt.0.content': 'hi',
    'gen_ai.completion.0.role': 'assistant',
    'gen_ai.completion.0.content': 'hello',
  });
  child.addEvent('gen_ai.choice', { index: 0 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' });
  child.end();
  // the child is stored before its parent is exported, so the root's roll-up sees it (§A.7)
  await provider.forceFlush();
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  const ids = {
    traceId: root.spanContext().traceId,
    rootId: root.spanContext().spanId,
    childId: child.spanContext().spanId,
  };
  await provider.forceFlush();
  await provider.shutdown();
  return ids;
}

async function readCalls(server: ServerProcess, key: string, project: string): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${server.url}/calls/stream_query`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project }),
  });
  assert.equal(res.status, 200);
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function checkTrace(
  calls: Array<Record<string, any>>,
  ids: { traceId: string; rootId: string; childId: string },
  project: string,
): void {
  assert.equal(calls.length, 2, JSON.stringify(calls));
  const root = calls.find((c) => c.id === ids.rootId)!;
  const child = calls.find((c) => c.id === ids.childId)!;
  assert.ok(root && child, 'both spans arrived as calls');
  assert.equal(root.trace_id, ids.traceId);
  assert.equal(child.trace_id, ids.traceId);
  assert.equal(child.parent_id, ids.rootId);
  assert.equal(root.parent_id, null);
  assert.match(root.op_name, new RegExp(`^weave:///${project}/op/invoke_agent_planner:[A-Za-z0-9]{43}$`));
  assert.equal(root.display_name, 'Plan');
  assert.deepEqual([root.thread_id, root.turn_id], ['th-1', ids.rootId]);
  assert.deepEqual(root.inputs, { 'input.value': { goal: 'trip' } });
  // Heddle rolls a span's stored children into its summary: a failed child makes the root descendant_error
  assert.equal(root.summary.weave.status, 'descendant_error');
  assert.deepEqual(root.summary.status_counts, { success: 1, error: 1 });
  assert.deepEqual(child.inputs, { messages: [{ role: 'user', content: 'hi' }] });
  assert.deepEqual(child.output, {
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: null }],
  });
  assert.equal(child.exception, 'rate limited');
  assert.equal(child.summary.weave.status, 'error');
  assert.equal(child.attributes.model, 'gpt-4o-mini-2024-07-18');
  assert.deepEqual(child.attributes.model_parameters, { model: 'gpt-4o-mini', temperature: 0.5 });
  assert.deepEqual(child.summary.usage['gpt-4o-mini-2024-07-18'], {
    input_tokens: 120,
    output_tokens: 80,
    prompt_tokens: null,
    completion_tokens: null,
    total_tokens: 200,
    requests: null,
  });
  assert.equal(child.attributes.otel_span.kind, 'CLIENT');
  assert.equal(child.attributes.otel_span.events[0].name, 'gen_ai.choice');
  assert.equal(child.attributes.otel_span.resource.attributes.service.name, 'e2e');
  // the SDK's start/end instants survive to the microsecond
  assert.match(child.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
  assert.ok(Date.parse(child.ended_at) >= Date.parse(child.started_at));
}

test('OTel JS exporters (OTLP protobuf and OTLP JSON, wandb-api-key) against a real Heddle process', async (t) => {
  const server = await startServerProcess(t);
  const key = await server.createKey('acme');

  const proto = new OtlpProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: { 'wandb-api-key': key } });
  const protoIds = await exportNestedTrace(proto, 'acme/otel-proto');
  checkTrace(await readCalls(server, key, 'acme/otel-proto'), protoIds, 'acme/otel-proto');

  const json = new OtlpHttpJsonExporter({
    url: `${server.url}/otel/v1/traces`,
    headers: { authorization: basicAuthHeader(key) },
  });
  const jsonIds = await exportNestedTrace(json, 'acme/otel-json');
  checkTrace(await readCalls(server, key, 'acme/otel-json'), jsonIds, 'acme/otel-json');

  const gzip = new OtlpProtoExporter({
    url: `${server.url}/otel/v1/traces`,
    headers: { 'wandb-api-key': key },
    compression: 'gzip' as never,
  });
  const gzipIds = await exportNestedTrace(gzip, 'acme/otel-gzip');
  checkTrace(await readCalls(server, key, 'acme/otel-gzip'), gzipIds, 'acme/otel-gzip');
});
