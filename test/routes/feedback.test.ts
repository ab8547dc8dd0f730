import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';

/** Feedback API (docs/spec/objects.md §7.1–7.6; checklist items 37–41). */

const CALL_REF = `weave:///${PROJECT}/call/c1`;

function note(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { project_id: PROJECT, weave_ref: CALL_REF, feedback_type: 'wandb.note.1', payload: { note: text }, ...extra };
}

async function create(h: TestApp, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await h.post('/feedback/create', body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function query(
  h: TestApp,
  body: Record<string, unknown> = {},
): Promise<{ result: Record<string, any>[]; total_count: number }> {
  const res = await h.post('/feedback/query', { project_id: PROJECT, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const byId = (id: string) => ({ $expr: { $eq: [{ $getField: 'id' }, { $literal: id }] } });

test('checklist 37: a reaction gets its CLDR alias, detoned form and detoned alias', async (t) => {
  const h = await buildTestApp(t);
  const res = await create(h, {
    project_id: PROJECT,
    weave_ref: CALL_REF,
    feedback_type: 'wandb.reaction.1',
    payload: { emoji: '👍' },
  });
  assert.deepEqual(res.payload, { emoji: '👍', alias: ':thumbs_up:', detoned: '👍', detoned_alias: ':thumbs_up:' });
  assert.match(res.id, /^[0-9a-f-]{36}$/);
  assert.match(res.created_at, /Z$/);
  const toned = await create(h, {
    project_id: PROJECT,
    weave_ref: CALL_REF,
    feedback_type: 'wandb.reaction.1',
    payload: { emoji: '👍🏽', extra: 1 },
  });
  assert.deepEqual(toned.payload, {
    emoji: '👍🏽',
    extra: 1,
    alias: ':thumbs_up_medium_skin_tone:',
    detoned: '👍',
    detoned_alias: ':thumbs_up:',
  });
  for (const emoji of ['👍👍', 'a', '']) {
    const bad = await h.post('/feedback/create', {
      project_id: PROJECT,
      weave_ref: CALL_REF,
      feedback_type: 'wandb.reaction.1',
      payload: { emoji },
    });
    assert.equal(bad.statusCode, 400, emoji);
  }
  const stored = await query(h, {
    query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.reaction.1' }] } },
  });
  assert.equal(stored.total_count, 2);
  assert.equal(stored.result[0]!.payload.alias, ':thumbs_up:');
  assert.equal(stored.result[0]!.wb_user_id, res.wb_user_id);
});

test('checklist 38: notes must be 1..1024 characters', async (t) => {
  const h = await buildTestApp(t);
  for (const text of ['', 'x'.repeat(1025)]) {
    const res = await h.post('/feedback/create', note(text));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error_type, 'InvalidRequest');
  }
  const ok = await create(h, note('x'.repeat(1024)));
  assert.equal(ok.payload.note.length, 1024);
  assert.equal((await query(h)).total_count, 1);
});

test('checklist 39: purge only by id; after it the row is gone', async (t) => {
  const h = await buildTestApp(t);
  const a = await create(h, note('a'));
  const b = await create(h, note('b'));
  const c = await create(h, note('c'));
  const refused = [
    { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.note.1' }] } },
    { $expr: { $in: [{ $getField: 'id' }, [{ $literal: a.id }]] } },
    { $expr: { $and: [byId(a.id).$expr] } },
    { $expr: { $eq: [{ $getField: 'id' }, { $literal: 5 }] } },
    // an empty $or names no feedback id (mutation check: accepting it answered 200)
    { $expr: { $or: [] } },
  ];
  for (const q of refused) {
    const res = await h.post('/feedback/purge', { project_id: PROJECT, query: q });
    assert.equal(res.statusCode, 400, JSON.stringify(q));
    assert.equal(res.json().reason, 'Can only purge feedback by specifying one or more feedback ids');
  }
  assert.equal((await query(h)).total_count, 3);
  const purged = await h.post('/feedback/purge', { project_id: PROJECT, query: byId(a.id) });
  assert.equal(purged.statusCode, 200);
  assert.deepEqual(purged.json(), {});
  assert.deepEqual(
    (await query(h)).result.map((r) => r.id),
    [b.id, c.id],
  );
  const both = await h.post('/feedback/purge', {
    project_id: PROJECT,
    query: { $expr: { $or: [byId(b.id).$expr, byId('unknown').$expr] } },
  });
  assert.equal(both.statusCode, 200);
  assert.deepEqual(
    (await query(h)).result.map((r) => r.id),
    [c.id],
  );
});

test('checklist 40: replace gives a new id and only the new row remains; an invalid replacement leaves the old row', async (t) => {
  const h = await buildTestApp(t);
  const old = await create(h, note('old'));
  const invalid = await h.post('/feedback/replace', { ...note(''), feedback_id: old.id });
  assert.equal(invalid.statusCode, 400);
  assert.deepEqual(
    (await query(h)).result.map((r) => r.id),
    [old.id],
  );
  const res = await h.post('/feedback/replace', { ...note('new'), feedback_id: old.id });
  assert.equal(res.statusCode, 200, res.body);
  const fresh = res.json();
  assert.notEqual(fresh.id, old.id);
  assert.deepEqual(fresh.payload, { note: 'new' });
  const rows = (await query(h)).result;
  assert.deepEqual(
    rows.map((r) => [r.id, r.payload.note]),
    [[fresh.id, 'new']],
  );
  const chosen = await h.post('/feedback/replace', { ...note('mine'), id: 'my-id', feedback_id: fresh.id });
  assert.equal(chosen.json().id, 'my-id');
  assert.deepEqual(
    (await query(h)).result.map((r) => r.id),
    ['my-id'],
  );
});

test('checklist 41: a payload over 1 MiB of JSON is refused with "Feedback payload too large"', async (t) => {
  const h = await buildTestApp(t);
  const big = {
    project_id: PROJECT,
    weave_ref: CALL_REF,
    feedback_type: 'custom',
    payload: { blob: 'x'.repeat(1_048_576) },
  };
  const res = await h.post('/feedback/create', big);
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().reason, 'Feedback payload too large');
  // `{"blob": "…"}` is 12 characters around the string: exactly at the limit is fine
  const fits = await h.post('/feedback/create', { ...big, payload: { blob: 'x'.repeat(1_048_576 - 12) } });
  assert.equal(fits.statusCode, 200, fits.body.slice(0, 200));
  assert.equal((await query(h)).total_count, 1);
});

test('reserved types: ref fields required or forbidden per type, scorer fields restricted, queue ids checked', async (t) => {
  const h = await buildTestApp(t);
  const base = { project_id: PROJECT, weave_ref: CALL_REF, payload: { x: 1 } };
  const cases: Array<[Record<string, unknown>, number]> = [
    [{ ...base, feedback_type: 'custom', annotation_ref: `weave:///${PROJECT}/object/spec:abc` }, 400],
    [{ ...base, feedback_type: 'custom', call_ref: CALL_REF }, 400],
    [{ ...base, feedback_type: 'custom', scorer_tags: ['t'] }, 400],
    [{ ...base, feedback_type: 'custom', queue_id: 'q' }, 400],
    [{ ...base, feedback_type: 'wandb.runnable.scorer' }, 400],
    [
      {
        ...base,
        feedback_type: 'wandb.runnable.scorer',
        runnable_ref: `weave:///${PROJECT}/op/other:abc`,
        call_ref: CALL_REF,
        payload: { output: 1 },
      },
      400,
    ],
    [
      {
        ...base,
        feedback_type: 'wandb.runnable.scorer',
        runnable_ref: `weave:///${PROJECT}/op/scorer:abc`,
        payload: { output: 1 },
      },
      400,
    ],
    [
      {
        ...base,
        feedback_type: 'wandb.runnable.scorer',
        runnable_ref: `weave:///${PROJECT}/op/scorer:abc`,
        call_ref: CALL_REF,
        payload: {},
      },
      400,
    ],
    [
      {
        ...base,
        feedback_type: 'wandb.runnable.scorer',
        runnable_ref: `weave:///${PROJECT}/op/scorer:abc`,
        call_ref: CALL_REF,
        payload: { output: 1 },
        scorer_tags: ['good'],
      },
      200,
    ],
    [
      {
        ...base,
        feedback_type: 'wandb.runnable.scorer',
        runnable_ref: 'not a ref',
        call_ref: CALL_REF,
        payload: { output: 1 },
      },
      400,
    ],
    [{ ...base, feedback_type: 'wandb.agent_monitor' }, 400],
    [{ ...base, feedback_type: 'wandb.agent_user_feedback' }, 400],
    [{ ...base, feedback_type: 'wandb.agent_user_feedback', scorer_tags: ['helpful'] }, 200],
    [
      {
        ...base,
        feedback_type: 'wandb.annotation.',
        annotation_ref: `weave:///${PROJECT}/object/x:abc`,
        payload: { value: 1 },
      },
      400,
    ],
    [{ ...base, feedback_type: 'wandb.annotation.quality', payload: { value: 1 } }, 400],
    [{ ...base, feedback_type: 'custom' }, 200],
  ];
  for (const [body, status] of cases) {
    const res = await h.post('/feedback/create', body);
    assert.equal(res.statusCode, status, `${JSON.stringify(body)} → ${res.body}`);
  }
  const extra = await h.post('/feedback/create', { ...base, feedback_type: 'custom', unknown: 1 });
  assert.equal(extra.statusCode, 422);
  assert.equal(extra.json().detail[0].type, 'extra_forbidden');
});

test('annotations validate against the AnnotationSpec field_schema', async (t) => {
  const h = await buildTestApp(t);
  const spec = await h.post('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'quality',
      val: {
        _type: 'AnnotationSpec',
        _class_name: 'AnnotationSpec',
        _bases: ['Object', 'BaseModel'],
        name: 'quality',
        field_schema: { type: 'integer', minimum: 1, maximum: 5 },
      },
    },
  });
  assert.equal(spec.statusCode, 200, spec.body);
  const ref = `weave:///${PROJECT}/object/quality:${spec.json().digest}`;
  const body = (value: unknown, extra: Record<string, unknown> = {}) => ({
    project_id: PROJECT,
    weave_ref: CALL_REF,
    feedback_type: 'wandb.annotation.quality',
    annotation_ref: ref,
    payload: { value },
    ...extra,
  });
  assert.equal((await h.post('/feedback/create', body(4))).statusCode, 200);
  assert.equal((await h.post('/feedback/create', body(9))).statusCode, 400);
  assert.equal((await h.post('/feedback/create', body('x'))).statusCode, 400);
  assert.equal(
    (await h.post('/feedback/create', body(3, { annotation_ref: `weave:///${PROJECT}/object/quality:nope` })))
      .statusCode,
    400,
  );
  assert.equal(
    (await h.post('/feedback/create', body(3, { feedback_type: 'wandb.annotation.other' }))).statusCode,
    400,
  );
});

test('batch create is all or nothing and keeps order', async (t) => {
  const h = await buildTestApp(t);
  const bad = await h.post('/feedback/batch/create', { batch: [note('a'), note('')] });
  assert.equal(bad.statusCode, 400);
  assert.equal((await query(h)).total_count, 0);
  const res = await h.post('/feedback/batch/create', { batch: [note('a'), note('b', { id: 'fixed' })] });
  assert.equal(res.statusCode, 200, res.body);
  const items = res.json().res;
  assert.equal(items.length, 2);
  assert.deepEqual(
    items.map((i: any) => i.payload.note),
    ['a', 'b'],
  );
  assert.equal(items[1].id, 'fixed');
  const dup = await h.post('/feedback/batch/create', { batch: [note('c'), note('d', { id: 'fixed' })] });
  assert.equal(dup.statusCode, 400);
  assert.equal((await query(h)).total_count, 2);
});

test('query: filters over columns and payload paths, sort, limit/offset, total_count, fields, count(*)', async (t) => {
  const h = await buildTestApp(t);
  for (const [i, score] of [3, 10, 7].entries()) {
    await create(h, {
      project_id: PROJECT,
      weave_ref: `${CALL_REF}${i}`,
      feedback_type: 'custom',
      payload: { score, nested: { label: `L${i}` } },
      creator: `u${i}`,
    });
  }
  await create(h, note('hi'));
  const custom = { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'custom' }] } };
  const all = await query(h, { query: custom });
  assert.equal(all.total_count, 3);
  assert.deepEqual(
    all.result.map((r) => r.payload.score),
    [3, 10, 7],
  );
  assert.equal(all.result[0]!.scorer_tags.length, 0);
  assert.equal(all.result[0]!.span_status_code, 'UNSET');
  const numeric = await query(h, {
    query: { $expr: { $gt: [{ $convert: { input: { $getField: 'payload.score' }, to: 'double' } }, { $literal: 5 }] } },
  });
  assert.deepEqual(numeric.result.map((r) => r.payload.score).sort(), [10, 7]);
  const sorted = await query(h, {
    query: custom,
    sort_by: [{ field: 'payload.score', direction: 'desc' }],
    limit: 2,
    offset: 1,
  });
  assert.deepEqual(
    sorted.result.map((r) => r.payload.score),
    [7, 3],
  );
  assert.equal(sorted.total_count, 3);
  const fields = await query(h, {
    query: custom,
    fields: ['id', 'payload.nested.label', 'payload.score', 'payload.missing', 'created_at'],
    limit: 1,
  });
  assert.deepEqual(Object.keys(fields.result[0]!), [
    'id',
    'payload.nested.label',
    'payload.score',
    'payload.missing',
    'created_at',
  ]);
  assert.equal(fields.result[0]!['payload.nested.label'], 'L0');
  assert.equal(fields.result[0]!['payload.score'], '3');
  assert.equal(fields.result[0]!['payload.missing'], '');
  const counted = await query(h, { fields: ['count(*)'], query: custom });
  assert.deepEqual(counted.result, [{ 'count(*)': 3 }]);
  const contains = await query(h, {
    query: {
      $expr: { $contains: { input: { $getField: 'creator' }, substr: { $literal: 'U1' }, case_insensitive: true } },
    },
  });
  assert.deepEqual(
    contains.result.map((r) => r.creator),
    ['u1'],
  );
  assert.equal((await h.post('/feedback/query', { project_id: PROJECT, fields: ['nope'] })).statusCode, 400);
  assert.equal(
    (
      await h.post('/feedback/query', {
        project_id: PROJECT,
        query: { $expr: { $eq: [{ $getField: 'nope' }, { $literal: 1 }] } },
      })
    ).statusCode,
    400,
  );
  assert.equal((await h.post('/feedback/query', { project_id: PROJECT, limit: -1 })).statusCode, 400);
});

test('tenancy: bob cannot reach acme/demo feedback (403) and projects do not see each other', async (t) => {
  const h = await buildTestApp(t);
  const mine = await create(h, note('secret'));
  const routes: Array<[string, Record<string, unknown>]> = [
    ['/feedback/create', note('x')],
    ['/feedback/batch/create', { batch: [note('x')] }],
    ['/feedback/query', { project_id: PROJECT }],
    ['/feedback/replace', { ...note('x'), feedback_id: mine.id }],
    ['/feedback/purge', { project_id: PROJECT, query: byId(mine.id) }],
    ['/feedback/payload_schema', { project_id: PROJECT, start: '2025-01-01T00:00:00Z', end: '2025-01-02T00:00:00Z' }],
    ['/feedback/stats', { project_id: PROJECT, start: '2025-01-01T00:00:00Z', end: '2025-01-02T00:00:00Z' }],
  ];
  for (const [url, body] of routes) {
    const res = await h.post(url, body, h.bobKey);
    assert.equal(res.statusCode, 403, url);
  }
  assert.deepEqual(
    (await query(h)).result.map((r) => r.payload.note),
    ['secret'],
  );
  const bobs = await h.post('/feedback/query', { project_id: 'other/p' }, h.bobKey);
  assert.equal(bobs.statusCode, 200);
  assert.equal(bobs.json().total_count, 0);
});
