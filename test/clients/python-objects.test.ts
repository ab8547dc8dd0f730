import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { runPythonDemo } from './python-script.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from './python-venv.js';

/**
 * Objects, tables and refs through the official Python client (PyPI weave, pinned) against a real
 * Heddle process: weave.publish of a Dataset, a weave.Model subclass and a prompt, weave.ref().get(),
 * a dataset row ref, and an op whose input is a published object, expanded with expand_columns
 * (docs/spec/objects.md §3–§5, docs/spec/calls.md §5.6).
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'objects_demo.py');
const PROJECT = 'acme/objdemo';

function runScript(
  python: string,
  server: ServerProcess,
  key: string,
  args: string[],
): Promise<{ result: Record<string, any>; log: string }> {
  return runPythonDemo(python, SCRIPT, server, key, args);
}

async function post(server: ServerProcess, key: string, url: string, body: unknown): Promise<string> {
  const res = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${url}: ${text}`);
  return text;
}

test(`objects, tables and refs through weave==${WEAVE_PY_VERSION}`, { timeout: 10 * 60_000 }, async (t) => {
  const venv = await ensureWeaveVenv();
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
    t.skip(`weave==${WEAVE_PY_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
    return;
  }
  const server = await startServerProcess(t);
  const key = await server.createKey('acme', { user: 'alice' });
  const { result, log } = await runScript(venv.python, server, key, [PROJECT]);

  // values read back through weave.ref(uri).get() equal what was published
  const rows = [
    { q: '2+2', a: 4 },
    { q: 'capital of France', a: 'Paris' },
    { q: 'pi', a: 3.5 },
  ];
  assert.deepEqual(result.dataset_rows, rows, log);
  assert.deepEqual(result.model, { factor: 2.5, label: 'double-and-a-half', predict: 5 }, log);
  assert.deepEqual(result.prompt, { content: 'You are {name}.', formatted: 'You are Heddle.' }, log);
  for (const [uri, name] of [
    [result.dataset_uri, 'qa'],
    [result.model_uri, 'scaler'],
    [result.prompt_uri, 'greeting'],
  ]) {
    assert.match(uri, new RegExp(`^weave:///${PROJECT}/object/${name}:[A-Za-z0-9]{43}$`), log);
  }

  // the dataset row ref resolves, in the client and over /refs/read_batch
  assert.match(
    result.row_ref ?? '',
    new RegExp(`^weave:///${PROJECT}/object/qa:[A-Za-z0-9]{43}/attr/rows/id/[A-Za-z0-9]{43}$`),
    log,
  );
  assert.deepEqual(result.row_val, rows[1], log);
  const read = JSON.parse(
    await post(server, key, '/refs/read_batch', { refs: [result.row_ref, `${result.model_uri}/attr/factor`] }),
  );
  assert.deepEqual(read.vals, [rows[1], 2.5]);

  // the published model is stored as an object of class Model
  const objs = JSON.parse(
    await post(server, key, '/objs/query', { project_id: PROJECT, filter: { base_object_classes: ['Model'] } }),
  ).objs;
  assert.deepEqual(
    objs.map((o: any) => [o.object_id, o.leaf_object_class]),
    [['scaler', 'Scaler']],
  );

  // the op call shows the model ref as its input and expands it on request
  assert.deepEqual(result.op_output, { label: 'double-and-a-half', scaled: 10 }, log);
  const query = (extra: Record<string, unknown>) =>
    post(server, key, '/calls/query', {
      project_id: PROJECT,
      filter: { op_names: [`weave:///${PROJECT}/op/describe:*`] },
      ...extra,
    }).then((text) => JSON.parse(text).calls);
  const [plain] = await query({});
  assert.ok(plain, `no describe call found\n${log}`);
  assert.equal(plain.inputs.model, result.model_uri, log);
  const [expanded] = await query({ expand_columns: ['inputs.model'] });
  assert.equal(expanded.inputs.model._ref, result.model_uri);
  assert.equal(expanded.inputs.model.factor, 2.5);
  assert.equal(expanded.inputs.model.label, 'double-and-a-half');
  const filtered = await query({
    expand_columns: ['inputs.model'],
    query: { $expr: { $gt: [{ $getField: 'inputs.model.factor' }, { $literal: 2 }] } },
  });
  assert.deepEqual(
    filtered.map((c: any) => c.id),
    [plain.id],
  );
});
