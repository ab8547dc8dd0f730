import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicAuth, buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';

const REF = `weave:///${PROJECT}`;

async function createObj(h: TestApp, objectId: string, val: unknown): Promise<string> {
  const res = await h.post('/obj/create', { obj: { project_id: PROJECT, object_id: objectId, val } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().digest;
}

async function readRefs(h: TestApp, refs: string[], key?: string) {
  return h.post('/refs/read_batch', { refs }, key);
}

async function vals(h: TestApp, refs: string[]): Promise<unknown[]> {
  const res = await readRefs(h, refs);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().vals;
}

test('§10.33 refs walk keys and indexes into nested values; a missing key answers null', async (t) => {
  const h = await buildTestApp(t);
  const d = await createObj(h, 'cfg', { a: [10, { b: 7 }] });
  assert.deepEqual(await vals(h, [`${REF}/object/cfg:${d}/key/a/index/1/key/b`]), [7]);
  assert.deepEqual(await vals(h, [`${REF}/object/cfg:${d}/key/missing`]), [null]);
  assert.deepEqual(
    await vals(h, [
      `${REF}/object/cfg:${d}`,
      `${REF}/object/cfg:${d}/attr/a/index/0`,
      `${REF}/object/cfg:${d}/key/a/index/2`,
    ]),
    [{ a: [10, { b: 7 }] }, 10, null],
  );
});

test('§10.34 a ref to a deleted version answers null; an unknown digest fails the whole request with 404', async (t) => {
  const h = await buildTestApp(t);
  const d0 = await createObj(h, 'o', { v: 0 });
  const d1 = await createObj(h, 'o', { v: 1 });
  assert.equal((await h.post('/obj/delete', { project_id: PROJECT, object_id: 'o', digests: [d0] })).statusCode, 200);
  assert.deepEqual(await vals(h, [`${REF}/object/o:${d0}`, `${REF}/object/o:${d1}/key/v`]), [null, 1]);
  const missing = await readRefs(h, [`${REF}/object/o:${d1}`, `${REF}/object/o:${'Z'.repeat(43)}`]);
  assert.equal(missing.statusCode, 404);
  assert.equal((await readRefs(h, [`${REF}/object/nope:${d1}`])).statusCode, 404);
});

test('§10.35 a dataset row ref walks through the table ref into the row', async (t) => {
  const h = await buildTestApp(t);
  const table = await h.post('/table/create', {
    table: {
      project_id: PROJECT,
      rows: [
        { q: '2+2', a: 4 },
        { q: 'x', a: 'y' },
      ],
    },
  });
  const { digest: tableDigest, row_digests: rowDigests } = table.json();
  const ds = await createObj(h, 'ds', { _type: 'Dataset', rows: `${REF}/table/${tableDigest}` });
  assert.deepEqual(
    await vals(h, [
      `${REF}/object/ds:${ds}/attr/rows/id/${rowDigests[1]}`,
      `${REF}/object/ds:${ds}/attr/rows/id/${rowDigests[0]}/key/a`,
    ]),
    [{ q: 'x', a: 'y' }, 4],
  );
  // a row that is not in that table
  assert.deepEqual(await vals(h, [`${REF}/object/ds:${ds}/attr/rows/id/${'Q'.repeat(43)}`]), [null]);
  // the step after a table ref must be id
  assert.equal((await readRefs(h, [`${REF}/object/ds:${ds}/attr/rows/key/x`])).statusCode, 400);
});

test('§10.36 table refs, more than 1000 refs and version latest are 400s', async (t) => {
  const h = await buildTestApp(t);
  const d = await createObj(h, 'cfg', { a: 1 });
  const table = await readRefs(h, [`${REF}/table/${'a'.repeat(64)}`]);
  assert.equal(table.statusCode, 400);
  assert.equal(table.json().reason, 'Table refs not supported');
  const many = await readRefs(h, new Array(1001).fill(`${REF}/object/cfg:${d}`));
  assert.equal(many.statusCode, 400);
  assert.match(many.json().reason, /^Too many refs/);
  assert.equal((await readRefs(h, new Array(1000).fill(`${REF}/object/cfg:${d}`))).statusCode, 200);
  const latest = await readRefs(h, [`${REF}/object/cfg:latest`]);
  assert.equal(latest.statusCode, 400);
  assert.equal(latest.json().reason, 'Reading refs with `latest` is not supported');
  assert.equal((await readRefs(h, [`${REF}/call/abc`])).statusCode, 400);
  for (const bad of ['nope', 'weave:///acme/demo', `${REF}/object/cfg`, `${REF}/object/cfg:${d}/key`]) {
    assert.equal((await readRefs(h, [bad])).statusCode, 400, bad);
  }
});

test('refs follow nested object refs (§5.4), keep a final ref as is, never leave the project', async (t) => {
  const h = await buildTestApp(t);
  const inner = await createObj(h, 'inner', { c: 5 });
  const innerRef = `${REF}/object/inner:${inner}`;
  const cfg = await createObj(h, 'cfg', { a: [10, { b: innerRef }], other: 'weave:///other/p/object/x:y' });
  assert.deepEqual(
    await vals(h, [
      `${REF}/object/cfg:${cfg}/key/a/index/1/key/b/key/c`,
      `${REF}/object/cfg:${cfg}/key/a/index/1/key/b`,
      `${REF}/object/cfg:${cfg}/key/zzz`,
    ]),
    [5, innerRef, null],
  );
  assert.deepEqual(await vals(h, [`${REF}/object/cfg:${cfg}/key/other/key/x`]), [null]);
  // version aliases and vN resolve; floats keep their form
  const res = await h.app.inject({
    method: 'POST',
    url: '/obj/create',
    headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
    payload: `{"obj":{"project_id":"${PROJECT}","object_id":"f","val":{"x":1.0}}}`,
  });
  assert.equal(res.statusCode, 200);
  const read = await readRefs(h, [`${REF}/object/f:v0`]);
  assert.equal(read.body.replace(/\s/g, ''), '{"vals":[{"x":1.0}]}');
});

test('refs are per project: bob gets 403 reading acme refs, also mixed with his own', async (t) => {
  const h = await buildTestApp(t);
  const d = await createObj(h, 'cfg', { a: 1 });
  const res = await readRefs(h, [`${REF}/object/cfg:${d}`], h.bobKey);
  assert.equal(res.statusCode, 403);
  const mixed = await readRefs(h, [`weave:///other/p/object/cfg:${d}`, `${REF}/object/cfg:${d}`], h.bobKey);
  assert.equal(mixed.statusCode, 403);
  assert.equal((await readRefs(h, [`weave:///other/p/object/cfg:${d}`], h.bobKey)).statusCode, 404);
});
