import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { basicAuth, buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { multipartBody } from '../helpers/multipart.js';

/**
 * Whole-project export and import over HTTP (docs/export.md "Whole-project export and import"): a
 * project written through the API into a SQLite Heddle is exported, imported into a PostgreSQL
 * Heddle, and reads back the same through the API there: object and table digests, table rows,
 * calls, feedback, costs, file bytes and annotation queues.
 */

type Json = Record<string, any>;

async function ok(res: Promise<{ statusCode: number; body: string }> | { statusCode: number; body: string }) {
  const r = await res;
  assert.equal(r.statusCode, 200, r.body);
  return r;
}
const okJson = async (res: Promise<{ statusCode: number; body: string; json(): any }>): Promise<Json> =>
  (await ok(res)) && (await res).json();

const FILE_BYTES = Buffer.concat([Buffer.from('binary \u0000\u00ff '), Buffer.alloc(300_000, 7)]);

/** Calls (a root with a child), objects with refs, a table, a file, feedback, prices and an annotation queue. */
async function write(h: TestApp): Promise<void> {
  await ok(h.post('/call/start', makeStart({ id: 'root', trace_id: 't1', inputs: { q: 'héllo', n: 1.5 } })));
  await ok(h.post('/call/start', makeStart({ id: 'child', trace_id: 't1', parent_id: 'root' })));
  await ok(h.post('/call/end', makeEnd('child', { output: { a: [1, 2, { b: null }] } })));
  await ok(
    h.post(
      '/call/end',
      makeEnd('root', { summary: { usage: { 'gpt-4o': { prompt_tokens: 3, completion_tokens: 4 } } } }),
    ),
  );
  const table = await okJson(
    h.post('/table/create', { table: { project_id: PROJECT, rows: [{ x: 1 }, { x: 'two' }] } }),
  );
  const file = multipartBody([
    { name: 'project_id', value: PROJECT },
    { name: 'file', filename: 'blob.bin', value: FILE_BYTES },
  ]);
  await ok(
    h.app.inject({
      method: 'POST',
      url: '/file/create',
      headers: { authorization: basicAuth(h.aliceKey), 'content-type': file.contentType },
      payload: file.payload,
    }),
  );
  const obj = await okJson(
    h.post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'Dataset',
        val: { _type: 'Dataset', rows: `weave:///${PROJECT}/table/${table.digest}`, z: 1, a: 2 },
      },
    }),
  );
  await ok(h.post('/obj/create', { obj: { project_id: PROJECT, object_id: 'Dataset', val: { v: 2 } } }));
  await ok(h.post('/obj/create', { obj: { project_id: PROJECT, object_id: 'Other', val: { ref: obj.digest } } }));
  await ok(
    h.post('/feedback/create', {
      project_id: PROJECT,
      weave_ref: `weave:///${PROJECT}/call/root`,
      feedback_type: 'wandb.reaction.1',
      payload: { emoji: '👍' },
    }),
  );
  await ok(
    h.post('/cost/create', {
      project_id: PROJECT,
      costs: { 'gpt-4o': { prompt_token_cost: 1, completion_token_cost: 2 } },
    }),
  );
  const queue = await okJson(h.post('/annotation_queues', { project_id: PROJECT, name: 'Review', scorer_refs: [] }));
  await ok(
    h.post(`/annotation_queues/${queue.id}/items`, {
      project_id: PROJECT,
      call_ids: ['root'],
      display_fields: ['inputs.q'],
    }),
  );
}

/** What the API answers about the project, on any server. */
async function view(h: TestApp): Promise<Json> {
  const calls = parseJsonl(
    (await ok(h.post('/calls/stream_query', { project_id: PROJECT, include_feedback: true, include_costs: true })))
      .body,
  );
  const objs = (await okJson(h.post('/objs/query', { project_id: PROJECT, filter: { latest_only: false } })))
    .objs as Json[];
  const dataset = objs.find((o) => o.object_id === 'Dataset' && o.version_index === 0)!;
  const tableDigest = String(dataset.val.rows).split('/').at(-1)!;
  const rows = (await okJson(h.post('/table/query', { project_id: PROJECT, digest: tableDigest }))).rows;
  const files = (await okJson(h.post('/files/query_stats', { project_id: PROJECT }))) as Json;
  const fileDigest = createHash('sha256').update(FILE_BYTES).digest('base64url');
  const content = await h.app.inject({
    method: 'POST',
    url: '/file/content',
    headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ project_id: PROJECT, digest: fileDigest }),
  });
  const feedback = (await okJson(h.post('/feedback/query', { project_id: PROJECT }))).result as Json[];
  const costs = (await okJson(h.post('/cost/query', { project_id: PROJECT }))).results as Json[];
  const queues = parseJsonl((await ok(h.post('/annotation_queues/query', { project_id: PROJECT }))).body);
  return {
    calls,
    objs: objs.map((o) => ({ id: o.object_id, digest: o.digest, v: o.version_index, val: o.val })),
    rows,
    files_size: files.total_size_bytes ?? null,
    file: { status: content.statusCode, sha: createHash('sha256').update(content.rawPayload).digest('hex') },
    feedback: feedback.map((f) => ({ id: f.id, ref: f.weave_ref, payload: f.payload, created_at: f.created_at })),
    costs: costs.map((c) => ({ id: c.id, llm: c.llm_id, p: c.prompt_token_cost })),
    queues: queues.map((q) => ({ id: q.id, name: q.name })),
  };
}

async function exportDump(h: TestApp): Promise<string> {
  const res = await h.get(`/projects/${PROJECT}/export`);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /application\/jsonl/);
  return res.body;
}

const importDump = (h: TestApp, body: string, project = PROJECT, key?: string) =>
  h.app.inject({
    method: 'POST',
    url: `/projects/${project}/import`,
    headers: { authorization: basicAuth(key ?? h.aliceKey), 'content-type': 'application/jsonl' },
    payload: body,
  });

test('a project moves from a SQLite Heddle to a PostgreSQL Heddle with every digest intact', async (t) => {
  const source = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' }, { store: 'sqlite' });
  const target = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' }, { store: 'postgres' });
  await write(source);
  const before = await view(source);
  assert.equal(before.calls.length, 2);
  assert.equal(before.file.status, 200);
  assert.equal(before.feedback.length, 1);

  const dump = await exportDump(source);
  const lines = parseJsonl(dump);
  assert.equal(lines[0]!.format, 'heddle-project-dump');
  assert.equal(lines[0]!.store, 'sqlite');
  assert.equal(lines.at(-1)!.end, true);
  assert.ok(lines.some((l) => l.table === 'file_chunks' && typeof (l.row as Json).data?.$base64 === 'string'));

  const imported = await importDump(target, dump);
  assert.equal(imported.statusCode, 200, imported.body);
  assert.equal(imported.json().imported_rows, lines.length - 2);
  const after = await view(target);
  assert.deepEqual(after, before);
  // and back again: the PostgreSQL export imports into a fresh SQLite Heddle the same
  const again = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' }, { store: 'sqlite' });
  const back = await importDump(again, await exportDump(target));
  assert.equal(back.statusCode, 200, back.body);
  assert.deepEqual(await view(again), before);
  // the moved project keeps working: a new call lands next to the imported ones
  await ok(target.post('/call/start', makeStart({ id: 'later' })));
  assert.equal(parseJsonl((await target.post('/calls/stream_query', { project_id: PROJECT })).body).length, 3);
});

test('imports are refused with a reason: not empty, another project, cut short, not a dump, no access', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' });
  await write(h);
  const dump = await exportDump(h);
  const busy = await importDump(h, dump);
  assert.equal(busy.statusCode, 409, busy.body);
  assert.match(busy.json().reason, /already holds/);
  const other = await importDump(h, dump, 'acme/elsewhere');
  assert.equal(other.statusCode, 400, other.body);
  assert.match(other.json().reason, /holds project acme\/demo/);
  assert.equal((await importDump(h, 'not json\n', 'acme/elsewhere')).statusCode, 400);
  assert.equal((await importDump(h, '', 'acme/elsewhere')).statusCode, 400);
  const asJson = await h.post('/projects/acme/elsewhere/import', { format: 'heddle-project-dump' });
  assert.equal(asJson.statusCode, 400, asJson.body);
  assert.match(asJson.json().reason, /application\/jsonl/);
  assert.equal((await importDump(h, dump, PROJECT, h.bobKey)).statusCode, 403);
  assert.equal((await h.get(`/projects/${PROJECT}/export`, h.bobKey)).statusCode, 403);
  assert.equal((await h.get('/projects/acme/nothing/export')).statusCode, 404);

  // a dump cut short: its rows land, the answer says so; deleting the project lets it be imported again
  const fresh = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' });
  const cut = dump.split('\n').slice(0, 4).join('\n');
  const partial = await importDump(fresh, cut);
  assert.equal(partial.statusCode, 400, partial.body);
  assert.match(partial.json().reason, /without its trailer/);
  const del = await fresh.app.inject({
    method: 'DELETE',
    url: `/projects/${PROJECT}`,
    headers: { authorization: basicAuth(fresh.aliceKey) },
  });
  assert.equal(del.statusCode, 200, del.body);
  assert.equal((await importDump(fresh, dump)).statusCode, 200);
  assert.deepEqual(await view(fresh), await view(h));
});
