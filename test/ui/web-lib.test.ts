/** Unit tests for the web app's pure logic (web/src/lib, web/src/api/stream/jsonl.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readJsonl, readLines, TruncatedStreamError } from '../../web/src/api/stream/jsonl.js';
import { chatFromInputs, chatFromOutput } from '../../web/src/lib/chat.js';
import { asFileValue, isSafeImageDataUrl, sniffImageType } from '../../web/src/lib/content.js';
import { opDisplayName, parseRef } from '../../web/src/lib/format.js';
import { mergeLive, patchRows } from '../../web/src/lib/live.js';
import {
  buildCallsQuery,
  FieldFilterError,
  parseFieldFilter,
  parseTracesSearch,
  searchText,
} from '../../web/src/lib/query.js';
import { ancestors, BIG_TRACE_CALLS, flattenTree, indexTrace, initiallyCollapsed } from '../../web/src/lib/tree.js';
import type { Call } from '../../web/src/lib/call.js';

function bytesStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(ch);
      c.close();
    },
  });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('JSONL reader', () => {
  const records = [
    { id: 'a', text: 'héllo — 👍 ünïcode' },
    { id: 'b', n: 1.5 },
    { id: 'c', nested: { s: 'line\\nbreak' } },
  ];
  const bytes = new TextEncoder().encode(records.map((r) => JSON.stringify(r)).join('\n') + '\n');

  test('a split at every byte boundary yields every record once', async () => {
    for (let i = 0; i <= bytes.length; i++) {
      const got = await collect(readJsonl(bytesStream([bytes.slice(0, i), bytes.slice(i)])));
      assert.deepEqual(got, records, `split at byte ${i}`);
    }
  });

  test('one byte per chunk', async () => {
    const chunks = [...bytes].map((b) => new Uint8Array([b]));
    assert.deepEqual(await collect(readJsonl(bytesStream(chunks))), records);
  });

  test('every pair of split points', async () => {
    for (let i = 0; i < bytes.length; i += 3)
      for (let j = i; j <= bytes.length; j += 5) {
        const got = await collect(readJsonl(bytesStream([bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)])));
        assert.equal(got.length, 3);
      }
  });

  test('an empty body is no records', async () => {
    assert.deepEqual(await collect(readJsonl(bytesStream([]))), []);
  });

  test('an unfinished last line is an error', async () => {
    const cut = bytes.slice(0, bytes.length - 5);
    await assert.rejects(collect(readJsonl(bytesStream([cut]))), TruncatedStreamError);
  });

  test('a large stream is parsed in slices, letting timers run between them', async () => {
    const line = JSON.stringify({ id: 'x'.repeat(40), payload: 'y'.repeat(1000) }) + '\n';
    const bytes = new TextEncoder().encode(line.repeat(30_000));
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 0);
    try {
      const rows = await collect(readJsonl(bytesStream([bytes])));
      assert.equal(rows.length, 30_000);
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks > 0, 'a timer ran while one 31 MB chunk was parsed');
  });

  test('lines of a text stream', async () => {
    const text = new ReadableStream<string>({
      start(c) {
        c.enqueue('a\nb');
        c.enqueue('c\n\nd\n');
        c.close();
      },
    });
    assert.deepEqual(await collect(readLines(text)), ['a', 'bc', 'd']);
  });
});

describe('chat detection', () => {
  test('OpenAI messages in inputs', () => {
    const m = chatFromInputs({
      model: 'x',
      messages: [
        { role: 'system', content: 'Be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    });
    assert.equal(m?.length, 2);
    assert.equal(m?.[1]!.parts[0]!.text, 'Hi');
    assert.equal(m?.[1].parts[1]!.kind, 'image');
  });
  test('choices in output, with tool calls', () => {
    const m = chatFromOutput({
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ function: { name: 'lookup', arguments: '{"q":1}' } }],
          },
        },
      ],
    });
    assert.equal(m?.[0]!.role, 'assistant');
    assert.deepEqual(m?.[0].toolCalls, [{ name: 'lookup', arguments: '{"q":1}' }]);
  });
  test('Anthropic-style single message output', () => {
    assert.equal(
      chatFromOutput({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] })?.[0]!.parts[0]!.text,
      'ok',
    );
  });
  test('not chat', () => {
    assert.equal(chatFromInputs({ messages: [{ role: 'user' }] }), null);
    assert.equal(chatFromInputs({ messages: 'hi' }), null);
    assert.equal(chatFromInputs({ messages: [{ role: 'wizard', content: 'x' }] }), null);
    assert.equal(chatFromOutput('text'), null);
    assert.equal(chatFromOutput({ choices: [] }), null);
  });
});

describe('query building', () => {
  test('field filter with and, strings, numbers, booleans', () => {
    assert.deepEqual(
      parseFieldFilter('inputs.user_id = "x y" and summary.weave.latency_ms > 1000 and output.ok != true'),
      [
        { $eq: [{ $getField: 'inputs.user_id' }, { $literal: 'x y' }] },
        { $gt: [{ $getField: 'summary.weave.latency_ms' }, { $literal: 1000 }] },
        { $not: [{ $eq: [{ $getField: 'output.ok' }, { $literal: true }] }] },
      ],
    );
  });
  test('contains and bare words', () => {
    assert.deepEqual(parseFieldFilter('inputs.prompt contains hello'), [
      { $contains: { input: { $getField: 'inputs.prompt' }, substr: { $literal: 'hello' }, case_insensitive: true } },
    ]);
  });
  test('escaped dots in paths', () => {
    assert.deepEqual(parseFieldFilter('summary.usage.gpt-3\\.5.total_tokens >= 5')[0], {
      $gte: [{ $getField: 'summary.usage.gpt-3\\.5.total_tokens' }, { $literal: 5 }],
    });
  });
  test('errors', () => {
    for (const bad of ['= 1', 'inputs.x', 'inputs.x = ', 'inputs.x = "open', 'a = 1 or b = 2', 'a = 1 and'])
      assert.throws(() => parseFieldFilter(bad), FieldFilterError, bad);
  });
  test('page state to filter and query', () => {
    const q = buildCallsQuery('acme/demo', {
      op: 'chat',
      status: 'error',
      from: '2025-01-01T00:00:00.000Z',
      q: 'inputs.n = 3',
    });
    assert.deepEqual(q.filter, { trace_roots_only: true, op_names: ['chat', 'weave:///acme/demo/op/chat:*'] });
    assert.deepEqual(q.query, {
      $expr: {
        $and: [
          { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] },
          { $gte: [{ $getField: 'started_at' }, { $literal: '2025-01-01T00:00:00.000Z' }] },
          { $eq: [{ $getField: 'inputs.n' }, { $literal: 3 }] },
        ],
      },
    });
    assert.deepEqual(buildCallsQuery('acme/demo', { all: true }), { filter: {}, query: null });
  });
  test('the search box: text in inputs or output, case-insensitive, beside the other filters', () => {
    const search = {
      $or: [
        { $contains: { input: { $getField: 'inputs' }, substr: { $literal: 'Refund' }, case_insensitive: true } },
        { $contains: { input: { $getField: 'output' }, substr: { $literal: 'Refund' }, case_insensitive: true } },
      ],
    };
    assert.deepEqual(searchText('Refund'), search);
    assert.deepEqual(buildCallsQuery('acme/demo', { text: 'Refund' }), {
      filter: { trace_roots_only: true },
      query: { $expr: search },
    });
    assert.deepEqual(buildCallsQuery('acme/demo', { status: 'error', q: 'inputs.n = 3', text: 'Refund' }).query, {
      $expr: {
        $and: [
          { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] },
          { $eq: [{ $getField: 'inputs.n' }, { $literal: 3 }] },
          search,
        ],
      },
    });
    // empty or blank in the URL: no search
    assert.deepEqual(parseTracesSearch({ text: '  ' }), {});
    assert.deepEqual(parseTracesSearch({ text: 'Refund' }), { text: 'Refund' });
    assert.deepEqual(buildCallsQuery('acme/demo', parseTracesSearch({ text: '' })).query, null);
  });
  test('URL params: invalid ones are dropped', () => {
    assert.deepEqual(
      parseTracesSearch({
        status: 'bogus',
        // not a column (input and output columns sort since they can be shown: web-lib-views.test.ts)
        sort: 'attributes.secret',
        dir: 'up',
        from: 'not a date',
        all: 'true',
        op: '',
        q: 'a = 1',
      }),
      { all: true, q: 'a = 1' },
    );
  });
});

describe('refs and files', () => {
  test('op refs', () => {
    assert.equal(opDisplayName('weave:///acme/demo/op/answer:abc'), 'answer');
    assert.equal(opDisplayName('plain'), 'plain');
    assert.deepEqual(parseRef('weave:///acme/demo/object/ds:d1/attr/rows'), {
      entity: 'acme',
      project: 'demo',
      kind: 'object',
      name: 'ds',
      digest: 'd1',
      extra: ['attr', 'rows'],
    });
    assert.equal(parseRef('weave:///acme'), null);
  });
  test('weave file values and image sniffing', () => {
    const f = asFileValue({
      _type: 'CustomWeaveType',
      weave_type: { type: 'PIL.Image.Image' },
      files: { 'image.png': 'd1' },
    });
    assert.equal(f?.isImage, true);
    assert.equal(f?.main?.digest, 'd1');
    const c = asFileValue({
      _type: 'CustomWeaveType',
      weave_type: { type: 'weave.type_wrappers.Content.content.Content' },
      files: { content: 'd2', 'metadata.json': 'd3' },
    });
    assert.equal(c?.main?.digest, 'd2');
    assert.equal(asFileValue({ files: {} }), null);
    assert.equal(sniffImageType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10])), 'image/png');
    assert.equal(sniffImageType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"></svg>')), null);
    assert.equal(isSafeImageDataUrl('data:image/png;base64,AAAA'), true);
    assert.equal(isSafeImageDataUrl('data:image/svg+xml;base64,AAAA'), false);
    assert.equal(isSafeImageDataUrl('javascript:alert(1)'), false);
  });
});

const mk = (id: string, parent: string | null, startSec: number): Call =>
  ({
    id,
    parent_id: parent,
    started_at: new Date(startSec * 1000).toISOString(),
    ended_at: new Date(startSec * 1000 + 500).toISOString(),
    op_name: 'op',
    trace_id: 't',
  }) as Call;

describe('trace tree', () => {
  test('children ordered by start; collapse hides descendants', () => {
    const idx = indexTrace([mk('r', null, 0), mk('b', 'r', 2), mk('a', 'r', 1), mk('a1', 'a', 1.5)]);
    assert.deepEqual(
      flattenTree(idx, new Set()).map((r) => `${r.id}@${r.depth}`),
      ['r@0', 'a@1', 'a1@2', 'b@1'],
    );
    assert.deepEqual(
      flattenTree(idx, new Set(['a'])).map((r) => r.id),
      ['r', 'a', 'b'],
    );
    assert.deepEqual(ancestors(idx, 'a1'), ['a', 'r']);
  });
  test('a 10,000-deep chain and orphans do not overflow', () => {
    const calls = [mk('c0', null, 0)];
    for (let i = 1; i < 10_000; i++) calls.push(mk(`c${i}`, `c${i - 1}`, i));
    calls.push(mk('orphan', 'missing-parent', 5));
    const t0 = performance.now();
    const rows = flattenTree(indexTrace(calls), new Set());
    assert.equal(rows.length, 10_001);
    assert.equal(rows[9_999]!.depth, 9_999);
    assert.ok(performance.now() - t0 < 2000);
  });
  test('a trace of up to BIG_TRACE_CALLS calls opens fully expanded', () => {
    const calls = [mk('r', null, 0)];
    for (let i = 1; i < BIG_TRACE_CALLS; i++) calls.push(mk(`c${i}`, i < 10 ? 'r' : `c${1 + (i % 9)}`, i));
    assert.equal(initiallyCollapsed(indexTrace(calls)).size, 0);
  });
  test('a bigger trace opens as its root and first level, the first level collapsed', () => {
    const calls = [mk('r', null, 0), mk('leaf', 'r', 0.5)];
    for (let a = 0; a < 10; a++) {
      calls.push(mk(`a${a}`, 'r', a + 1));
      for (let i = 0; i < BIG_TRACE_CALLS / 10; i++) calls.push(mk(`a${a}-${i}`, `a${a}`, a + 1 + i / 1000));
    }
    calls.push(mk('a0-0-x', 'a0-0', 1.1));
    const idx = indexTrace(calls);
    const collapsed = initiallyCollapsed(idx);
    assert.deepEqual([...collapsed].sort(), ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9']);
    assert.deepEqual(
      flattenTree(idx, collapsed).map((r) => r.id),
      ['r', 'leaf', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9'],
    );
  });
  test('a parent cycle does not loop', () => {
    const idx = indexTrace([mk('x', 'y', 0), mk('y', 'x', 1)]);
    assert.ok(flattenTree(idx, new Set()).length <= 2);
    assert.ok(ancestors(idx, 'x').length <= 2);
  });
});

describe('live tail merge', () => {
  test('dedupes by id, newest first, capped', () => {
    const a = mk('a', null, 1);
    const b = mk('b', null, 2);
    const c = mk('c', null, 3);
    assert.deepEqual(
      mergeLive([a], [b, a, c, b]).map((x) => x.id),
      ['c', 'b', 'a'],
    );
    assert.equal(
      mergeLive(
        [],
        Array.from({ length: 20 }, (_, i) => mk(`n${i}`, null, i)),
        5,
      ).length,
      5,
    );
  });

  test('a call sent again (it ended) replaces the one held, in place', () => {
    const a = mk('a', null, 1);
    const b = mk('b', null, 2);
    const ended = { ...a, ended_at: '2026-01-01T00:00:09Z' };
    const merged = mergeLive([b, a], [ended]);
    assert.deepEqual(
      merged.map((x) => x.id),
      ['b', 'a'],
    );
    assert.equal(merged[1]!.ended_at, ended.ended_at);
    assert.equal(patchRows([b, a], new Map([['a', ended]]))[1]!.ended_at, ended.ended_at);
  });
});

describe('line diff', () => {
  test('keeps common lines, marks one changed line as removed then added', async () => {
    const { diffLines } = await import('../../web/src/lib/diff.js');
    assert.deepEqual(diffLines('a\nb\nc', 'a\nB\nc'), [
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
    assert.deepEqual(
      diffLines('', 'x').map((l) => l.kind),
      ['removed', 'added'],
    );
  });
});

describe('exception parts', () => {
  test('JSON, Type: message with a traceback, and plain text', async () => {
    const { parseException } = await import('../../web/src/lib/call.js');
    assert.deepEqual(parseException('{"type":"KeyError","message":"x","traceback":"tb"}'), {
      type: 'KeyError',
      message: 'x',
      traceback: 'tb',
    });
    assert.deepEqual(parseException('ValueError: bad\n  File "a.py"'), {
      type: 'ValueError',
      message: 'bad',
      traceback: '  File "a.py"',
    });
    assert.deepEqual(parseException('<b>x</b>'), { type: null, message: '<b>x</b>', traceback: null });
  });

  test("an OTLP call's exception takes the type and stack trace of its span's exception event", async () => {
    const { callException } = await import('../../web/src/lib/call.js');
    const event = (exception: Record<string, unknown>) => ({
      otel_span: {
        events: [
          { name: 'log', attributes: {} },
          { name: 'exception', attributes: { exception } },
        ],
      },
    });
    const stack = 'Error: lookup failed\n    at lookup (tools.js:3:9)';
    // the call holds the status message only; the event holds the rest
    assert.deepEqual(
      callException({
        exception: 'lookup failed',
        attributes: event({ type: 'Error', message: 'lookup failed', stacktrace: stack }),
      }),
      { type: 'Error', message: 'lookup failed', traceback: stack },
    );
    // an empty status message: the event's message
    assert.deepEqual(
      callException({ exception: '', attributes: event({ type: 'TimeoutError', message: 'no answer' }) }),
      {
        type: 'TimeoutError',
        message: 'no answer',
        traceback: null,
      },
    );
    // no event: the text alone; no exception: nothing
    assert.deepEqual(callException({ exception: 'ValueError: bad', attributes: {} }), {
      type: 'ValueError',
      message: 'bad',
      traceback: null,
    });
    assert.equal(callException({ exception: null, attributes: event({ type: 'Error' }) }), null);
  });

  test("the Python client's traceback, a list of frames, reads as Python prints it", async () => {
    const { parseException } = await import('../../web/src/lib/call.js');
    // as weave 0.54.0 writes a KeyError (test/ui/client-defects.test.ts reads one from the client)
    const text = JSON.stringify({
      type: 'KeyError',
      message: "'user_id'",
      traceback: [
        { filename: 'app.py', line_number: 80, function_name: 'main', text: 'handle(payload)' },
        { filename: 'app.py', line_number: 47, function_name: 'handle', text: 'return payload["user_id"]' },
      ],
    });
    assert.deepEqual(parseException(text), {
      type: 'KeyError',
      message: "'user_id'",
      traceback: [
        'Traceback (most recent call last):',
        '  File "app.py", line 80, in main',
        '    handle(payload)',
        '  File "app.py", line 47, in handle',
        '    return payload["user_id"]',
      ].join('\n'),
    });
  });
});
