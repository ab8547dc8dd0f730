import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** `POST /calls/export` (docs/export.md): JSONL and CSV downloads of a project's calls. */

const USAGE = { 'my-llm': { prompt_tokens: 100, completion_tokens: 50, requests: 1 } };

async function seed(h: TestApp): Promise<void> {
  const cost = await h.post('/cost/create', {
    project_id: PROJECT,
    costs: {
      'my-llm': { prompt_token_cost: 0.001, completion_token_cost: 0.002, effective_date: '2020-01-01T00:00:00Z' },
    },
  });
  assert.equal(cost.statusCode, 200, cost.body);
  const calls: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    [
      'a',
      { inputs: { q: 'hello, "world"\nsecond line' }, op_name: 'chat' },
      { output: 'fine', summary: { usage: USAGE } },
    ],
    ['b', { inputs: { q: 'plain' }, op_name: 'score', display_name: '=HYPERLINK("http://x")' }, { output: 1 }],
    ['c', { inputs: {}, op_name: 'chat', display_name: '@SUM(A1)' }, { exception: '-boom', output: null }],
  ];
  for (const [id, start, end] of calls) {
    const s = await h.post('/call/start', makeStart({ id, ...start }));
    assert.equal(s.statusCode, 200, s.body);
    assert.equal((await h.post('/call/end', makeEnd(id, end))).statusCode, 200);
  }
  for (const payload of [{ emoji: '👍' }, { emoji: '👍' }]) {
    const fb = await h.post('/feedback/create', {
      project_id: PROJECT,
      weave_ref: `weave:///${PROJECT}/call/a`,
      feedback_type: 'wandb.reaction.1',
      payload,
    });
    assert.equal(fb.statusCode, 200, fb.body);
  }
  await h.post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/a`,
    feedback_type: 'note',
    payload: { note: '+1 great' },
  });
}

/** A minimal RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && ch === '"') {
      quoted = false;
    } else if (quoted) {
      field += ch;
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else {
      field += ch;
    }
  }
  assert.equal(field, '', 'the last record ends with CRLF');
  return records;
}

test('JSONL export equals stream_query with feedback and costs, as an attachment', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const res = await h.post('/calls/export', { project_id: PROJECT });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/jsonl/);
  assert.equal(res.headers['content-disposition'], 'attachment; filename="acme-demo-calls.jsonl"');
  const streamed = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    include_feedback: true,
    include_costs: true,
  });
  assert.equal(res.body, streamed.body);
  const [a] = parseJsonl(res.body) as any[];
  assert.equal(a.summary.weave.feedback.length, 3);
  assert.equal(a.summary.weave.costs['my-llm'].prompt_tokens, 100);
  // both extras can be turned off
  const bare = await h.post('/calls/export', { project_id: PROJECT, include_feedback: false, include_costs: false });
  assert.equal(bare.body, (await h.post('/calls/stream_query', { project_id: PROJECT })).body);
});

test('CSV export: fixed columns, RFC 4180 quoting, formula cells neutralised', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const res = await h.post('/calls/export', { project_id: PROJECT, format: 'csv' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  assert.equal(res.headers['content-disposition'], 'attachment; filename="acme-demo-calls.csv"');
  const [header, a, b, c, ...rest] = parseCsv(res.body);
  assert.equal(rest.length, 0);
  assert.ok(header && a && b && c);
  assert.deepEqual(header, [
    'id',
    'trace_id',
    'parent_id',
    'op_name',
    'display_name',
    'started_at',
    'ended_at',
    'status',
    'latency_ms',
    'exception',
    'tokens',
    'cost',
    'feedback',
    'inputs',
    'output',
    'attributes',
  ]);
  const row = (r: string[]): Record<string, string> => Object.fromEntries(header.map((name, i) => [name, r[i] ?? '']));
  const ra = row(a);
  assert.equal(ra.id, 'a');
  assert.equal(ra.status, 'success');
  assert.equal(ra.latency_ms, '1000');
  assert.equal(ra.tokens, '150');
  assert.equal(Number(ra.cost), 100 * 0.001 + 50 * 0.002);
  assert.equal(ra.feedback, 'wandb.reaction.1:👍×2; note×1');
  // commas, quotes and a line break survive quoting
  assert.deepEqual(JSON.parse(ra.inputs ?? ''), { q: 'hello, "world"\nsecond line' });
  assert.equal(ra.output, '"fine"');
  assert.match(res.body, /"\{""q"":""hello, \\""world\\""\\nsecond line""\}"/);
  // cells a spreadsheet would evaluate start with '
  assert.equal(row(b).display_name, `'=HYPERLINK("http://x")`);
  assert.equal(row(c).display_name, "'@SUM(A1)");
  assert.equal(row(c).exception, "'-boom");
  assert.equal(row(c).status, 'error');
  assert.equal(row(b).tokens, '');
});

test('the export is filtered and sorted like stream_query', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const body = {
    query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'chat' }] } },
    sort_by: [{ field: 'id', direction: 'desc' }],
  };
  const jsonl = await h.post('/calls/export', { project_id: PROJECT, ...body });
  assert.deepEqual(
    parseJsonl(jsonl.body).map((c) => c.id),
    ['c', 'a'],
  );
  const csv = await h.post('/calls/export', { project_id: PROJECT, format: 'csv', filter: { call_ids: ['b'] } });
  assert.deepEqual(
    parseCsv(csv.body).map((r) => r[0]),
    ['id', 'b'],
  );
  // an empty result is the header alone
  const none = await h.post('/calls/export', { project_id: PROJECT, format: 'csv', filter: { call_ids: ['zz'] } });
  assert.equal(parseCsv(none.body).length, 1);
  // a bad query is refused before anything is sent
  const bad = await h.post('/calls/export', {
    project_id: PROJECT,
    format: 'csv',
    query: { $expr: { $eq: [{ $getField: 'no_such_field' }, { $literal: 1 }] } },
  });
  assert.ok(bad.statusCode >= 400 && bad.statusCode < 500, bad.body);
  assert.equal(bad.headers['content-disposition'], undefined);
  assert.equal((await h.post('/calls/export', { project_id: PROJECT, format: 'xml' })).statusCode, 422);
});

test('another entity cannot export the project', async (t) => {
  const h = await buildTestApp(t);
  await seed(h);
  const res = await h.post('/calls/export', { project_id: PROJECT }, h.bobKey);
  assert.equal(res.statusCode, 403);
  assert.equal(res.headers['content-disposition'], undefined);
});
