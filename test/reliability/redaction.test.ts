import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { ensurePostgres } from '../helpers/postgres.js';
import { attr, exportReq, sendOtel, span } from '../routes/otel-fixture.js';

/**
 * PII redaction on write (issue 35, docs/redaction.md): known personal data sent through every
 * write path (call start, end, upsert_batch, v2 calls/complete, OTLP, agent spans, feedback create and replace)
 * never reaches the store: the SQLite file and its WAL, or every text column of PostgreSQL, holds
 * none of it, and the calls read back with `[redacted:<kind>]` in its place, counted per project.
 */

const PII = {
  email: 'jane.roe@example.org',
  phone: '+1 (415) 555-0134',
  ssn: '078-05-1120',
  credit_card: '4111 1111 1111 1111',
  ip: '203.0.113.77',
  employee_id: 'EMP-48213',
};
const SENTENCE = `mail ${PII.email}, call ${PII.phone}, ssn ${PII.ssn}, card ${PII.credit_card}, from ${PII.ip}, ${PII.employee_id}`;
/** What is searched for in the raw store: each value, and its digits alone where it has separators. */
const NEEDLES = [...Object.values(PII), '4111111111111111', '0781120', '4155550134'];

const ENV = { HEDDLE_REDACT: 'all', HEDDLE_REDACT_PATTERNS: JSON.stringify({ employee_id: 'EMP-\\d{5}' }) };

async function writeEverywhere(h: TestApp): Promise<void> {
  const ok = (res: { statusCode: number; body: string }, what: string): void =>
    assert.equal(res.statusCode, 200, `${what}: ${res.body}`);
  const start = makeStart({ id: 'r1', trace_id: 'r1', inputs: { q: SENTENCE }, attributes: { who: SENTENCE } });
  ok(await h.post('/call/start', start), 'call/start');
  ok(await h.post('/call/end', makeEnd('r1', { output: { a: SENTENCE }, summary: { note: SENTENCE } })), 'call/end');
  const s2 = makeStart({ id: 'r2', trace_id: 'r2', inputs: { nested: [{ deep: SENTENCE }] } });
  ok(
    await h.post('/call/upsert_batch', {
      batch: [{ req: s2 }, { req: makeEnd('r2', { output: SENTENCE, exception: SENTENCE }) }],
    }),
    'upsert_batch',
  );
  const { start: s3 } = makeStart({ id: 'r3', trace_id: 'r3', inputs: { q: SENTENCE } });
  ok(
    await h.post('/v2/acme/demo/calls/complete', {
      batch: [{ ...s3, ended_at: '2025-01-01T10:00:01Z', exception: null, output: { a: SENTENCE }, summary: {} }],
    }),
    'v2 calls/complete',
  );
  ok(
    await sendOtel(
      h,
      exportReq([span({ name: 'llm', attributes: [attr('input.value', SENTENCE), attr('user.note', SENTENCE)] })]),
    ),
    'otlp',
  );
  // a GenAI agent span (an agent span and a call, docs/spec/agents.md §1), with messages and a tool call
  ok(
    await sendOtel(
      h,
      exportReq([
        span({
          name: 'chat gpt-4o',
          attributes: [
            attr('gen_ai.operation.name', 'chat'),
            attr('gen_ai.agent.name', 'helper'),
            attr('gen_ai.conversation.id', 'conv-1'),
            attr(
              'gen_ai.input.messages',
              JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: SENTENCE }] }]),
            ),
            attr(
              'gen_ai.output.messages',
              JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: SENTENCE }] }]),
            ),
            attr('gen_ai.tool.call.arguments', JSON.stringify({ q: SENTENCE })),
            attr('app.note', SENTENCE),
          ],
        }),
      ]),
      { url: '/agents/otel/v1/traces' },
    ),
    'agents otlp',
  );
  const feedback = await h.post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/r1`,
    feedback_type: 'wandb.note.1',
    payload: { note: SENTENCE },
  });
  ok(feedback, 'feedback/create');
  ok(
    await h.post('/feedback/replace', {
      project_id: PROJECT,
      feedback_id: (feedback.json() as { id: string }).id,
      weave_ref: `weave:///${PROJECT}/call/r1`,
      feedback_type: 'wandb.note.1',
      payload: { note: `again ${SENTENCE}` },
    }),
    'feedback/replace',
  );
}

async function rawStoreText(h: TestApp): Promise<string> {
  if (!h.config.databaseUrl) {
    // the SQLite database and its WAL, as bytes on disk (a checkpoint may not have run yet)
    return fs
      .readdirSync(h.config.dataDir)
      .filter((f) => f.startsWith('heddle.sqlite'))
      .map((f) => fs.readFileSync(path.join(h.config.dataDir, f)).toString('latin1'))
      .join('\n');
  }
  const client = new pg.Client({ connectionString: h.config.databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ t: string }>(`SELECT t::text AS t FROM "${table_name}" t`);
      for (const r of rows.rows) parts.push(r.t);
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}

for (const store of ['sqlite', 'postgres'] as const) {
  test(`personal data sent through every write path is redacted before it is stored [${store}]`, async (t) => {
    if (store === 'postgres' && (await ensurePostgres()) === null) return t.skip('PostgreSQL unavailable');
    const h = await buildTestApp(t, ENV, { store });
    await writeEverywhere(h);
    const raw = await rawStoreText(h);
    for (const needle of NEEDLES) assert.equal(raw.includes(needle), false, `${needle} reached the ${store} store`);
    assert.match(raw, /\[redacted:email\]/);

    const calls = await h.post('/calls/stream_query', { project_id: PROJECT });
    assert.equal(calls.statusCode, 200);
    const text = calls.body;
    for (const needle of NEEDLES) assert.equal(text.includes(needle), false, needle);
    for (const kind of Object.keys(PII)) assert.match(text, new RegExp(`\\[redacted:${kind}\\]`), kind);
    const stats = await h.get('/projects/acme/demo/redaction');
    assert.equal(stats.statusCode, 200);
    const body = stats.json() as { kinds: string[]; redacted: Record<string, number> };
    assert.ok(body.kinds.includes('email') && body.kinds.includes('employee_id'));
    for (const kind of Object.keys(PII)) assert.ok((body.redacted[kind] ?? 0) >= 7, `${kind}: ${body.redacted[kind]}`);
  });
}

test('without HEDDLE_REDACT nothing is redacted; a bad setting is refused at start', async (t) => {
  const h = await buildTestApp(t);
  assert.equal(
    (await h.post('/call/start', makeStart({ id: 'p1', trace_id: 'p1', inputs: { q: SENTENCE } }))).statusCode,
    200,
  );
  const calls = await h.post('/calls/stream_query', { project_id: PROJECT });
  assert.ok(calls.body.includes(PII.email));
  assert.deepEqual((await h.get('/projects/acme/demo/redaction')).json(), {
    project_id: PROJECT,
    kinds: [],
    redacted: {},
  });
  await assert.rejects(buildTestApp(t, { HEDDLE_REDACT: 'emails' }), /HEDDLE_REDACT: unknown kind "emails"/);
  await assert.rejects(
    buildTestApp(t, { HEDDLE_REDACT_PATTERNS: '{"x":"("}' }),
    /HEDDLE_REDACT_PATTERNS: "x": Invalid regular expression/,
  );
});
