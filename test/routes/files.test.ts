import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { countRows as countTableRows } from '../helpers/db-rows.js';
import { basicAuth, buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { multipartBody, type FormPart } from '../helpers/multipart.js';

const HELLO_DIGEST = 'uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek';

function upload(h: TestApp, parts: FormPart[], opts: { url?: string; key?: string } = {}) {
  const { payload, contentType } = multipartBody(parts);
  return h.app.inject({
    method: 'POST',
    url: opts.url ?? '/file/create',
    headers: { authorization: basicAuth(opts.key ?? h.aliceKey), 'content-type': contentType },
    payload,
  });
}

const fileParts = (bytes: string | Buffer, extra: FormPart[] = []): FormPart[] => [
  { name: 'project_id', value: PROJECT },
  ...extra,
  { name: 'file', filename: 'obj.py', value: bytes },
];

test('§10.8 /file/create of "hello world" answers its digest and /file/content returns the bytes', async (t) => {
  const h = await buildTestApp(t);
  const res = await upload(h, fileParts('hello world'));
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { digest: HELLO_DIGEST });
  const content = await h.post('/file/content', { project_id: PROJECT, digest: HELLO_DIGEST });
  assert.equal(content.statusCode, 200);
  assert.equal(content.headers['content-type'], 'application/octet-stream');
  assert.equal(content.headers['content-length'], '11');
  assert.deepEqual(content.rawPayload, Buffer.from('hello world'));
});

test('§10.45 /file/content with an unknown digest answers 404', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/file/content', { project_id: PROJECT, digest: HELLO_DIGEST });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().reason, `File with digest ${HELLO_DIGEST} not found`);
});

test('a multi-chunk binary file round-trips byte for byte, at both paths', async (t) => {
  const h = await buildTestApp(t);
  const bytes = Buffer.alloc(2 * 1024 * 1024 + 12345);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 31 + (i >> 11)) & 0xff;
  const expected = createHash('sha256').update(bytes).digest('base64url').replace(/-/g, 'X').replace(/_/g, 'Y');
  const res = await upload(h, fileParts(bytes), { url: '/files/create' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().digest, expected);
  const content = await h.post('/files/content', { project_id: PROJECT, digest: expected });
  assert.equal(content.statusCode, 200);
  assert.equal(Buffer.compare(content.rawPayload, bytes), 0);
});

test('uploading the same bytes twice stores them once; /files/query_stats sums distinct files', async (t) => {
  const h = await buildTestApp(t);
  assert.deepEqual((await h.post('/files/query_stats', { project_id: PROJECT })).json(), { total_size_bytes: 0 });
  await upload(h, fileParts('hello world'));
  const again = await upload(h, fileParts('hello world'));
  assert.equal(again.json().digest, HELLO_DIGEST);
  await upload(h, fileParts(''));
  await upload(h, fileParts('abc'));
  assert.deepEqual((await h.post('/files/query_stats', { project_id: PROJECT })).json(), { total_size_bytes: 14 });
  const empty = await h.post('/file/content', {
    project_id: PROJECT,
    digest: '47DEQpj8HBSaXYTImWX5JCeuQeRkm5NMpJWZG3hSuFU',
  });
  assert.equal(empty.statusCode, 200);
  assert.equal(empty.rawPayload.length, 0);
});

test('a wrong expected_digest answers 409 and stores nothing; the right one is accepted', async (t) => {
  const h = await buildTestApp(t);
  const wrong = await upload(h, fileParts('hello world', [{ name: 'expected_digest', value: 'wrong' }]));
  assert.equal(wrong.statusCode, 409);
  assert.equal(wrong.json().error_type, 'DigestMismatchError');
  assert.equal(wrong.json().reason, `Client file digest wrong != server digest ${HELLO_DIGEST}`);
  assert.equal((await h.post('/file/content', { project_id: PROJECT, digest: HELLO_DIGEST })).statusCode, 404);
  assert.deepEqual((await h.post('/files/query_stats', { project_id: PROJECT })).json(), { total_size_bytes: 0 });
  const right = await upload(h, fileParts('hello world', [{ name: 'expected_digest', value: HELLO_DIGEST }]));
  assert.equal(right.statusCode, 200);
});

test('a file sent before project_id is still stored', async (t) => {
  const h = await buildTestApp(t);
  const res = await upload(h, [
    { name: 'file', filename: 'x.bin', value: 'hello world' },
    { name: 'project_id', value: PROJECT },
  ]);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().digest, HELLO_DIGEST);
  assert.equal(
    (await h.post('/file/content', { project_id: PROJECT, digest: HELLO_DIGEST })).rawPayload.toString(),
    'hello world',
  );
});

test('missing form fields answer 422 naming them', async (t) => {
  const h = await buildTestApp(t);
  const noFile = await upload(h, [{ name: 'project_id', value: PROJECT }]);
  assert.equal(noFile.statusCode, 422);
  assert.deepEqual(
    noFile.json().detail.map((d: { loc: string[] }) => d.loc),
    [['body', 'file']],
  );
  const noProject = await upload(h, [{ name: 'file', filename: 'a', value: 'x' }]);
  assert.equal(noProject.statusCode, 422);
  assert.deepEqual(
    noProject.json().detail.map((d: { loc: string[] }) => d.loc),
    [['body', 'project_id']],
  );
  const json = await h.post('/file/create', { project_id: PROJECT });
  assert.equal(json.statusCode, 422);
});

test('a file over HEDDLE_FILE_LIMIT_BYTES answers 413 and leaves nothing behind', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_FILE_LIMIT_BYTES: '1000' });
  const res = await upload(h, fileParts(Buffer.alloc(1001, 7)));
  assert.equal(res.statusCode, 413);
  assert.match(res.json().reason, /^Request too large: the file exceeds the limit of 1000 bytes$/);
  assert.deepEqual((await h.post('/files/query_stats', { project_id: PROJECT })).json(), { total_size_bytes: 0 });
  const atLimit = await upload(h, fileParts(Buffer.alloc(1000, 7)));
  assert.equal(atLimit.statusCode, 200);
});

function countRows(h: TestApp, _t: { after(fn: () => void): void }): (table: string) => number {
  return (table) => countTableRows(h, table);
}

test('rejected uploads leave no stored chunks behind (too large, or digest mismatch after chunks were staged)', async (t) => {
  const limit = 1024 * 1024 + 100;
  const h = await buildTestApp(t, { HEDDLE_FILE_LIMIT_BYTES: String(limit) });
  const count = countRows(h, t);
  assert.equal((await upload(h, fileParts(Buffer.alloc(3 * 1024 * 1024, 1)))).statusCode, 413);
  assert.equal(count('file_chunks'), 0);
  const mismatch = await upload(h, [
    { name: 'project_id', value: PROJECT },
    { name: 'file', filename: 'big', value: Buffer.alloc(limit, 2) },
    { name: 'expected_digest', value: 'wrong' },
  ]);
  assert.equal(mismatch.statusCode, 409);
  assert.equal(count('file_chunks'), 0);
  assert.equal(count('files'), 0);
  const ok = await upload(h, fileParts(Buffer.alloc(limit, 2)));
  assert.equal(ok.statusCode, 200);
  assert.equal(count('file_chunks'), 2);
});

test('tenancy: bob cannot upload to, read from or measure acme/demo (403)', async (t) => {
  const h = await buildTestApp(t);
  await upload(h, fileParts('hello world'));
  assert.equal((await upload(h, fileParts('secret'), { key: h.bobKey })).statusCode, 403);
  assert.equal(
    (await h.post('/file/content', { project_id: PROJECT, digest: HELLO_DIGEST }, h.bobKey)).statusCode,
    403,
  );
  assert.equal((await h.post('/files/query_stats', { project_id: PROJECT }, h.bobKey)).statusCode, 403);
  // bob's own project does not see acme's file
  const own = await h.post('/file/content', { project_id: 'other/p', digest: HELLO_DIGEST }, h.bobKey);
  assert.equal(own.statusCode, 404);
});

test('/file/content rejects unknown keys (422 extra_forbidden)', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/file/content', { project_id: PROJECT, digest: HELLO_DIGEST, foo: 1 });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().detail[0].type, 'extra_forbidden');
});

test('a malformed multipart body answers 400, never 500', async (t) => {
  const h = await buildTestApp(t);
  const send = (payload: string, contentType: string) =>
    h.app.inject({
      method: 'POST',
      url: '/file/create',
      headers: { authorization: basicAuth(h.aliceKey), 'content-type': contentType },
      payload,
    });
  const truncated = await send(
    `--x\r\nContent-Disposition: form-data; name="project_id"\r\n\r\n${PROJECT}\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nhel`,
    'multipart/form-data; boundary=x',
  );
  assert.equal(truncated.statusCode, 400);
  assert.match(truncated.json().reason, /^Malformed multipart body: /);
  const noBoundary = await send('', 'multipart/form-data');
  assert.equal(noBoundary.statusCode, 400);
  assert.deepEqual((await h.post('/files/query_stats', { project_id: PROJECT })).json(), { total_size_bytes: 0 });
});
