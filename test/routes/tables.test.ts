import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestValue } from '../../src/domain/digest.js';
import { parseLosslessJson } from '../../src/domain/json-value.js';
import { basicAuth, buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';

const E9_ROWS = [
  { q: '2+2', a: 4 },
  { q: 'capital of France', a: 'Paris' },
];
const E9_ROW_DIGESTS = ['VFqNlLTJiR3tbX0qjLO67Q2feGsqM1vILazadYZcfEI', 'Qf7PtO7LOmJhnRvTrOPu786gRYJ7rwZZ3ZZ6lmEMSdE'];
const E9_DIGEST = '025ed7a6455ee35f2b15483140ce8ee0161bf30dd9abc9f326da69b11c37fbfe';
const EMPTY_DIGEST = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** POSTs raw JSON text (number literals like `1.0` survive). */
function postRaw(h: TestApp, url: string, text: string) {
  return h.app.inject({
    method: 'POST',
    url,
    headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
    payload: text,
  });
}

async function createTable(h: TestApp, rows: unknown[]): Promise<{ digest: string; row_digests: string[] }> {
  const res = await h.post('/table/create', { table: { project_id: PROJECT, rows } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function queryRows(
  h: TestApp,
  body: Record<string, unknown>,
): Promise<Array<{ digest: string; val: unknown; original_index: number }>> {
  const res = await h.post('/table/query', { project_id: PROJECT, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().rows;
}

test('§10.6 /table/create of the E9 rows answers the spec row digests and table digest', async (t) => {
  const h = await buildTestApp(t);
  const created = await createTable(h, E9_ROWS);
  assert.deepEqual(created, { digest: E9_DIGEST, row_digests: E9_ROW_DIGESTS });
  const reversed = await createTable(h, [...E9_ROWS].reverse());
  assert.equal(reversed.digest, 'b8db9a39856b5b56c71b19c3d771bce08d4992aec09a7a8a9acdcb5bba8ffa7e');
  // idempotent
  assert.deepEqual(await createTable(h, E9_ROWS), created);
});

test('§10.7 /table/create of no rows answers the SHA-256 of empty input', async (t) => {
  const h = await buildTestApp(t);
  assert.deepEqual(await createTable(h, []), { digest: EMPTY_DIGEST, row_digests: [] });
  assert.deepEqual(await queryRows(h, { digest: EMPTY_DIGEST }), []);
  assert.deepEqual((await h.post('/table/query_stats', { project_id: PROJECT, digest: EMPTY_DIGEST })).json(), {
    count: 0,
  });
});

test('/table/create hashes number literals losslessly, keeps duplicates and stores each row once', async (t) => {
  const h = await buildTestApp(t);
  const res = await postRaw(
    h,
    '/table/create',
    `{"table":{"project_id":"${PROJECT}","rows":[{"x":1},{"x":1.0},{"x":1},{"big":12345678901234567890}]}}`,
  );
  assert.equal(res.statusCode, 200, res.body);
  const { digest, row_digests: rowDigests } = res.json();
  assert.deepEqual(rowDigests.slice(0, 3), [
    'YTYlqmU0Pbsbmr5qusZ3P1yRvWDT8vX34urmnh24sic',
    'hXYo5CD9tT04YhwV9Lb3Yn20n4eGfwZO2DFpPCvifmA',
    'YTYlqmU0Pbsbmr5qusZ3P1yRvWDT8vX34urmnh24sic',
  ]);
  assert.equal(rowDigests[3], 'GbRsLDYZiVS5AmYZwJjl1sguqJYEmSeYXN5PtvCLzig');
  const query = await h.post('/table/query', { project_id: PROJECT, digest });
  assert.match(query.body, /"val":\{"x": 1\.0\}/);
  assert.match(query.body, /12345678901234567890/);
  assert.deepEqual(
    JSON.parse(query.body).rows.map((r: { original_index: number }) => r.original_index),
    [0, 1, 2, 3],
  );
  const batch = await h.post('/table/query_stats_batch', {
    project_id: PROJECT,
    digests: [digest, 'f'.repeat(64)],
    include_storage_size: true,
  });
  // rows {"x": 1} (8 bytes) twice, {"x": 1.0} (10), {"big": …} (29)
  assert.deepEqual(batch.json(), { tables: [{ count: 4, digest, storage_size_bytes: 8 + 10 + 8 + 29 }] });
  const noSize = await h.post('/table/query_stats_batch', { project_id: PROJECT, digests: [digest] });
  assert.deepEqual(noSize.json(), { tables: [{ count: 4, digest, storage_size_bytes: null }] });
});

test('/table/create: expected_digest mismatch is a 409, non-object rows a 422, malformed refs a 400', async (t) => {
  const h = await buildTestApp(t);
  const mismatch = await h.post('/table/create', {
    table: { project_id: PROJECT, rows: E9_ROWS, expected_digest: 'wrong' },
  });
  assert.equal(mismatch.statusCode, 409);
  assert.equal(mismatch.json().error_type, 'DigestMismatchError');
  assert.equal((await h.post('/table/query_stats', { project_id: PROJECT, digest: E9_DIGEST })).json().count, 0);
  const ok = await h.post('/table/create', {
    table: { project_id: PROJECT, rows: E9_ROWS, expected_digest: E9_DIGEST },
  });
  assert.equal(ok.statusCode, 200);
  const bad = await h.post('/table/create', { table: { project_id: PROJECT, rows: [{ a: 1 }, 5] } });
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(bad.json().detail[0].loc, ['body', 'table', 'rows', '1']);
  const badRef = await h.post('/table/create', { table: { project_id: PROJECT, rows: [{ a: 'weave:///x' }] } });
  assert.equal(badRef.statusCode, 400);
});

test('/table/create_from_digests builds a table of stored rows; unknown row digests are refused by name (issue 17)', async (t) => {
  const h = await buildTestApp(t);
  await createTable(h, E9_ROWS);
  const unknown = 'A'.repeat(43);
  const refused = await h.post('/table/create_from_digests', {
    project_id: PROJECT,
    row_digests: [E9_ROW_DIGESTS[1], unknown, E9_ROW_DIGESTS[0]],
  });
  assert.equal(refused.statusCode, 400, refused.body);
  assert.match(refused.json().reason, new RegExp(`Unknown row digests .*\\(1\\): ${unknown}$`));
  // a row stored in another project is unknown here too
  const foreign = await h.post('/table/create_from_digests', {
    project_id: 'acme/elsewhere',
    row_digests: E9_ROW_DIGESTS,
  });
  assert.equal(foreign.statusCode, 400, foreign.body);
  const res = await h.post('/table/create_from_digests', {
    project_id: PROJECT,
    row_digests: [E9_ROW_DIGESTS[1], E9_ROW_DIGESTS[0], E9_ROW_DIGESTS[1]],
  });
  assert.equal(res.statusCode, 200, res.body);
  const { digest } = res.json();
  const rows = await queryRows(h, { digest });
  assert.deepEqual(rows, [
    { digest: E9_ROW_DIGESTS[1], val: E9_ROWS[1], original_index: 0 },
    { digest: E9_ROW_DIGESTS[0], val: E9_ROWS[0], original_index: 1 },
    { digest: E9_ROW_DIGESTS[1], val: E9_ROWS[1], original_index: 2 },
  ]);
  assert.deepEqual((await h.post('/table/query_stats', { project_id: PROJECT, digest })).json(), { count: 3 });
  const same = await h.post('/table/create_from_digests', {
    project_id: PROJECT,
    row_digests: E9_ROW_DIGESTS,
    expected_digest: E9_DIGEST,
  });
  assert.deepEqual(same.json(), { digest: E9_DIGEST });
  const mismatch = await h.post('/table/create_from_digests', {
    project_id: PROJECT,
    row_digests: E9_ROW_DIGESTS,
    expected_digest: EMPTY_DIGEST,
  });
  assert.equal(mismatch.statusCode, 409);
});

test('/table/update applies append, insert and pop in order and leaves the base table unchanged', async (t) => {
  const h = await buildTestApp(t);
  const base = await createTable(h, [{ n: 0 }, { n: 1 }, { n: 2 }]);
  const res = await postRaw(
    h,
    '/table/update',
    `{"project_id":"${PROJECT}","base_digest":"${base.digest}","updates":[{"append":{"row":{"n":3.0}}},{"pop":{"index":0}},{"insert":{"index":1,"row":{"n":9}}}]}`,
  );
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  const expected = await createTable(h, [{ n: 1 }, { n: 9 }, { n: 2 }]);
  assert.equal(body.updated_row_digests[0], digestValue(parseLosslessJson('{"n":3.0}')).digest);
  assert.notEqual(body.updated_row_digests[0], digestValue({ n: 3 }).digest);
  assert.equal(body.updated_row_digests[1], base.row_digests[0]);
  assert.equal(body.updated_row_digests[2], expected.row_digests[1]);
  const rows = await h.post('/table/query', { project_id: PROJECT, digest: body.digest });
  assert.match(rows.body, /"val":\{"n": 3\.0\}/);
  assert.deepEqual(
    JSON.parse(rows.body).rows.map((r: { val: { n: number } }) => r.val.n),
    [1, 9, 2, 3],
  );
  assert.deepEqual(
    (await queryRows(h, { digest: base.digest })).map((r) => (r.val as { n: number }).n),
    [0, 1, 2],
  );
});

test('/table/update: index out of range is a 400, an unknown base a 404, a bad spec a 422', async (t) => {
  const h = await buildTestApp(t);
  const base = await createTable(h, [{ n: 0 }]);
  const update = (updates: unknown[], digest = base.digest) =>
    h.post('/table/update', { project_id: PROJECT, base_digest: digest, updates });
  for (const spec of [
    { pop: { index: 1 } },
    { pop: { index: -1 } },
    { insert: { index: 2, row: {} } },
    { insert: { index: -1, row: {} } },
  ]) {
    const res = await update([spec]);
    assert.equal(res.statusCode, 400, JSON.stringify(spec));
    assert.equal(res.json().reason, 'Index out of range');
  }
  assert.equal((await update([{ insert: { index: 1, row: { n: 1 } } }])).statusCode, 200);
  assert.equal((await update([{ pop: { index: 0 } }], 'f'.repeat(64))).statusCode, 404);
  assert.equal((await update([{ pop: { index: 'x' } }])).statusCode, 422);
  assert.equal((await update([{}])).statusCode, 422);
});

test('/table/query filters by row digest, sorts by paths in the §4.4 order, pages; query_stream matches', async (t) => {
  const h = await buildTestApp(t);
  const rows = [
    { k: 'b', v: { n: 2 } },
    { k: 1 },
    { k: null },
    { k: 'a', v: { n: [5, 1] } },
    { k: true },
    { k: 0.5 },
    {},
  ];
  const { digest, row_digests: rowDigests } = await createTable(h, rows);
  const order = async (body: Record<string, unknown>) =>
    (await queryRows(h, { digest, ...body })).map((r) => r.original_index);
  assert.deepEqual(await order({}), [0, 1, 2, 3, 4, 5, 6]);
  // missing/null (table order), numbers (true = 1), strings
  assert.deepEqual(await order({ sort_by: [{ field: 'k', direction: 'asc' }] }), [2, 6, 5, 1, 4, 3, 0]);
  assert.deepEqual(await order({ sort_by: [{ field: 'k', direction: 'desc' }] }), [0, 3, 1, 4, 5, 2, 6]);
  assert.deepEqual(await order({ sort_by: [{ field: 'v.n.1', direction: 'desc' }], limit: 1 }), [3]);
  assert.deepEqual(await order({ sort_by: [{ field: 'k', direction: 'asc' }], limit: 2, offset: 3 }), [1, 4]);
  assert.deepEqual(await order({ filter: { row_digests: [rowDigests[4], rowDigests[0]] } }), [0, 4]);
  for (const field of ['', '.k', 'k.', 'a..b']) {
    const res = await h.post('/table/query', { project_id: PROJECT, digest, sort_by: [{ field, direction: 'asc' }] });
    assert.equal(res.statusCode, 400, field);
  }
  const stream = await h.post('/table/query_stream', {
    project_id: PROJECT,
    digest,
    sort_by: [{ field: 'k', direction: 'desc' }],
  });
  assert.equal(stream.statusCode, 200);
  assert.equal(stream.headers['content-type'], 'application/jsonl');
  assert.ok(stream.body.endsWith('\n'));
  assert.deepEqual(
    parseJsonl(stream.body),
    await queryRows(h, { digest, sort_by: [{ field: 'k', direction: 'desc' }] }),
  );
  assert.deepEqual(await queryRows(h, { digest: 'f'.repeat(64) }), []);
  const emptyStream = await h.post('/table/query_stream', { project_id: PROJECT, digest: 'f'.repeat(64) });
  assert.equal(emptyStream.statusCode, 200);
  assert.equal(emptyStream.body, '');
});

test('tables are per project: bob gets 403 on every table route of acme/demo, and his own project sees no acme table', async (t) => {
  const h = await buildTestApp(t);
  const { digest } = await createTable(h, E9_ROWS);
  const bodies: Array<[string, unknown]> = [
    ['/table/create', { table: { project_id: PROJECT, rows: E9_ROWS } }],
    ['/table/create_from_digests', { project_id: PROJECT, row_digests: E9_ROW_DIGESTS }],
    ['/table/update', { project_id: PROJECT, base_digest: digest, updates: [{ pop: { index: 0 } }] }],
    ['/table/query', { project_id: PROJECT, digest }],
    ['/table/query_stream', { project_id: PROJECT, digest }],
    ['/table/query_stats', { project_id: PROJECT, digest }],
    ['/table/query_stats_batch', { project_id: PROJECT, digests: [digest] }],
  ];
  for (const [url, body] of bodies) {
    const res = await h.post(url, body, h.bobKey);
    assert.equal(res.statusCode, 403, url);
  }
  const own = await h.post('/table/query', { project_id: 'other/p', digest }, h.bobKey);
  assert.deepEqual(own.json(), { rows: [] });
  assert.deepEqual((await h.post('/table/query_stats', { project_id: PROJECT, digest })).json(), { count: 2 });
});
