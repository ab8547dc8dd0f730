import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  attributeTree,
  indexedObjectsToArrays,
  lookup,
  PathConflictError,
  stringifyJson,
} from '../../src/ingest/otel/attribute-tree.js';
import { extractSemantics } from '../../src/ingest/otel/extract.js';
import { decodeOtlpJson } from '../../src/ingest/otel/otlp-json.js';
import {
  nativeJsonIsExact,
  OtlpDecodeError,
  type OtelJson,
  type OtlpKeyValue,
} from '../../src/ingest/otel/otlp-model.js';
import { decodeOtlpProtobuf, encodeOtlpProtobuf } from '../../src/ingest/otel/otlp-protobuf.js';
import { opObjectId, shortenOpName, spanToCall } from '../../src/ingest/otel/span-call.js';

/** Pure parts of OTel ingest (docs/spec/otel-service-queues.md §A.1, §A.3–A.5): decoding, attribute trees, extraction. */

const kv = (key: string, value: OtelJson): OtlpKeyValue => ({ key, value });

test('§A.3: dotted keys nest; top-level JSON text is parsed, nested and space-led text is not', () => {
  const tree = attributeTree([
    kv('gen_ai.usage.input_tokens', 5),
    kv('a.json', '{"x": [1, {"y": 2}]}'),
    kv('a.spaced', ' {"x": 1}'),
    kv('a.bad', '[1, 2'),
    kv('a.kv', { inner: '{"not": "parsed"}' }),
  ]);
  assert.deepEqual(tree, {
    gen_ai: { usage: { input_tokens: 5 } },
    a: { json: { x: [1, { y: 2 }] }, spaced: ' {"x": 1}', bad: '[1, 2', kv: { inner: '{"not": "parsed"}' } },
  });
  assert.equal(lookup(tree, 'a.json.x.1.y'), 2);
  assert.equal(lookup(tree, 'a.json.x.5'), undefined);
});

test('§A.3 step 4: a value and a parent at one path conflict in either order, naming the key', () => {
  for (const order of [
    [kv('gen_ai.prompt', true), kv('gen_ai.prompt.content', 'x')],
    [kv('gen_ai.prompt.content', 'x'), kv('gen_ai.prompt', true)],
  ]) {
    assert.throws(
      () => attributeTree(order),
      (e: unknown) =>
        e instanceof PathConflictError && /Invalid attribute structure: .*'gen_ai\.prompt'/.test(e.message),
    );
  }
  // the same key twice is not a conflict: the last value wins
  assert.deepEqual(attributeTree([kv('a', 1), kv('a', 2)]), { a: 2 });
  assert.deepEqual(attributeTree([kv('__proto__.x', 1)]), JSON.parse('{"__proto__": {"x": 1}}'));
});

test('§A.3 step 6: only objects keyed exactly 0..n-1 become arrays', () => {
  assert.deepEqual(indexedObjectsToArrays({ '0': 'a', '1': { '0': 'b' } }), ['a', ['b']]);
  assert.deepEqual(indexedObjectsToArrays({ '0': 'a', '2': 'c' }), { '0': 'a', '2': 'c' });
  assert.deepEqual(indexedObjectsToArrays({ '1': 'a' }), { '1': 'a' });
});

test('§A.5: falsy candidates fall through; span attributes win over the events tree; usage totals', () => {
  const attributes = attributeTree([
    kv('ai.prompt', ''),
    kv('gen_ai.prompt', '{}'),
    kv('input.value', 'hello'),
    kv('llm.token_count.prompt', '12'),
    kv('llm.token_count.completion', 3),
    kv('gen_ai.usage.total_tokens', 99),
    kv('llm.model_name', 'm1'),
    kv('llm.invocation_parameters', '{"temperature": 0}'),
  ]);
  const events = { gen_ai: { choice: [{ text: 'from event' }] } };
  const out = extractSemantics({ attributes, events });
  assert.deepEqual(out.inputs, { 'input.value': 'hello' });
  assert.deepEqual(out.output, { 'events.gen_ai.choice': [{ text: 'from event' }] });
  assert.deepEqual(out.usage, {
    input_tokens: null,
    output_tokens: null,
    prompt_tokens: 12,
    completion_tokens: 3,
    total_tokens: 15,
    requests: null,
  });
  assert.deepEqual(out.attributes, { model: 'm1', model_parameters: { temperature: 0 } });
  const withOwn = extractSemantics({ attributes: attributeTree([kv('events.gen_ai.choice', 'own')]), events });
  assert.deepEqual(withOwn.output, { 'events.gen_ai.choice': 'own' });
  const nonInt = extractSemantics({
    attributes: attributeTree([kv('gen_ai.usage.input_tokens', 'many'), kv('gen_ai.usage.output_tokens', 2)]),
    events: {},
  });
  assert.equal(nonInt.usage.input_tokens, 'many');
  assert.equal(nonInt.usage.total_tokens, null);
});

test('§A.4: op names of 128+ chars are cut at a delimiter and hashed; object ids are sanitised', () => {
  assert.equal(shortenOpName('short name'), 'short name');
  const long = `${'a'.repeat(100)} ${'b'.repeat(40)}`;
  const short = shortenOpName(long);
  assert.match(short, /^a{100}:[0-9a-f]{4}$/);
  const hard = shortenOpName('x'.repeat(300));
  assert.equal(hard.length, 128);
  assert.match(hard, /^x{123}:[0-9a-f]{4}$/);
  assert.equal(opObjectId('Chat GPT/4o:mini é'), 'chat_gpt_4o_mini__');
  assert.equal(opObjectId(''), 'otel_span');
});

test('§A.1 OTLP/JSON: snake_case names, enum names, int64 as numbers or strings (exact), upper-case hex, bytes, non-finite doubles', () => {
  const text = `{"resource_spans": [{"resource": {"attributes": [{"key": "k", "value": {"int_value": 9223372036854775807}}]},
    "scope_spans": [{"spans": [{"trace_id": "0AF7651916CD43DD8448EB211C80319C", "span_id": "B7AD6B7169203331", "name": "n",
      "kind": "SPAN_KIND_PRODUCER", "start_time_unix_nano": 1767225600123456789, "end_time_unix_nano": "1767225601000000000",
      "status": {"code": "STATUS_CODE_ERROR", "message": "m"},
      "attributes": [{"key": "d", "value": {"doubleValue": "NaN"}}, {"key": "b", "value": {"bytesValue": "AQID"}}, {"key": "e", "value": {}},
        {"key": "arr", "value": {"arrayValue": {"values": [{"intValue": "-9007199254740993"}, {"doubleValue": 1.5}]}}}]}]}]}]}`;
  const req = decodeOtlpJson(text);
  const group = req.resourceSpans[0]!;
  assert.equal(group.resourceAttributes[0]!.value, 9223372036854775807n);
  const s = group.scopeSpans[0]!.spans[0]!;
  assert.equal(s.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(s.spanId, 'b7ad6b7169203331');
  assert.equal(s.kind, 4);
  assert.equal(s.startTimeUnixNano, 1767225600123456789n);
  assert.equal(s.statusCode, 2);
  assert.deepEqual(
    s.attributes.map((a) => a.value),
    ['nan', 'AQID', null, [-9007199254740993n, 1.5]],
  );
  assert.equal(stringifyJson({ x: s.attributes[3]!.value }), '{"x":[-9007199254740993,1.5]}');
  // the native parser is only used when no number literal could be rounded
  assert.equal(nativeJsonIsExact('{"a": 123456789012345, "t": "17672256001234567890"}'), true);
  assert.equal(nativeJsonIsExact('{"a": [1, 1234567890123456]}'), false);
  assert.equal(
    decodeOtlpJson('{"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": 1767225600123456789}]}]}]}')
      .resourceSpans[0]!.scopeSpans[0]!.spans[0]!.startTimeUnixNano,
    1767225600123456789n,
  );
  for (const bad of [
    '[1',
    '{"resourceSpans": 1}',
    '{"resourceSpans": [{"scopeSpans": [{"spans": [{"kind": "SPAN_KIND_NOPE"}]}]}]}',
  ]) {
    assert.throws(() => decodeOtlpJson(bad), OtlpDecodeError, bad);
  }
});

test('§A.1 OTLP protobuf: decoded by protobufjs with exact fixed64 times and int64 values', () => {
  const bytes = encodeOtlpProtobuf({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'wandb.entity', value: { stringValue: 'acme' } }] },
        scopeSpans: [
          {
            scope: { name: 's', version: '1' },
            spans: [
              {
                traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'),
                spanId: Buffer.from('b7ad6b7169203331', 'hex'),
                name: 'n',
                kind: 3,
                startTimeUnixNano: '1767225600123456789',
                endTimeUnixNano: '18446744073709551615',
                attributes: [
                  { key: 'i', value: { intValue: '-9223372036854775808' } },
                  { key: 'kv', value: { kvlistValue: { values: [{ key: 'a.b', value: { boolValue: false } }] } } },
                  { key: 'd', value: { doubleValue: Infinity } },
                ],
                events: [{ name: 'e', timeUnixNano: '1767225600000000001' }],
                status: { code: 1, message: 'ok' },
              },
            ],
          },
        ],
      },
    ],
  });
  const s = decodeOtlpProtobuf(bytes).resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
  assert.equal(s.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(s.parentSpanId, '');
  assert.equal(s.startTimeUnixNano, 1767225600123456789n);
  assert.equal(s.endTimeUnixNano, 18446744073709551615n);
  assert.deepEqual(
    s.attributes.map((a) => a.value),
    [-9223372036854775808n, { 'a.b': false }, 'inf'],
  );
  assert.equal(s.events[0]!.timeUnixNano, 1767225600000000001n);
  assert.deepEqual([s.kind, s.statusCode, s.statusMessage], [3, 1, 'ok']);
  assert.throws(() => decodeOtlpProtobuf(Buffer.from([0x0a, 0x05, 0x01])), OtlpDecodeError);
});

test('§A.5 events tree: event names are dot-split into own keys (also __proto__), one list entry per event', () => {
  const event = (name: string, value: number) => ({
    name,
    timeUnixNano: 0n,
    attributes: [kv('v', value)],
    droppedAttributesCount: 0,
  });
  const outcome = spanToCall(
    {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: '',
      traceState: '',
      flags: 0,
      name: 'n',
      kind: 1,
      startTimeUnixNano: 1767225600000000000n,
      endTimeUnixNano: 0n,
      attributes: [],
      links: [],
      statusCode: 0,
      statusMessage: '',
      events: [event('__proto__.x', 1), event('gen_ai.choice', 2), event('gen_ai.choice', 3)],
    },
    { projectId: 'acme/demo', resourceTree: {}, resourceDroppedAttributesCount: 0, wbRunId: null },
  );
  assert.ok(outcome.ok);
  assert.deepEqual(outcome.call.output, { 'events.gen_ai.choice': [{ v: 2 }, { v: 3 }] });
  assert.equal(outcome.call.ended_at, outcome.call.started_at, 'endTimeUnixNano 0 → ended_at = started_at');
  assert.equal(Object.getPrototypeOf(outcome.call.otel_dump), Object.prototype);
});
