/**
 * The official TypeScript client (npm `weave`, pinned) publishes a Dataset into a real Heddle
 * process, reads it back row by row through its own ref API, and runs an Evaluation over it
 * (issue 4, "Official TypeScript client"). What the client stored is checked over raw HTTP:
 * the table and object it created, `/refs/read_batch` on its row refs, and the evaluation's calls
 * (`/calls/stream_query`) whose inputs must be the dataset row refs. Client behaviour and the
 * recorded ref forms: docs/ts-client.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';
import { failedExchanges, postJson, streamAllCalls } from './helpers/ts-demo.js';
import { describeScriptRun, requestJson, responseJson, runTsScript } from './helpers/ts-script.js';
import {
  DATASET_NAME,
  DATASET_ROWS,
  EVAL_NAME,
  EVAL_PROJECT as PROJECT,
  type DatasetEvalOutput,
} from './ts/dataset-eval-output.js';

type Call = Record<string, any>;
const D43 = '[A-Za-z0-9]{43}';
const OP_REF = new RegExp(`^weave:///${PROJECT}/op/([^:/]+):(${D43})$`);

async function postOk(url: string, key: string, route: string, body: unknown): Promise<any> {
  const res = await postJson(url, key, route, body);
  const text = await res.text();
  assert.equal(res.status, 200, `${route}: ${text}`);
  return JSON.parse(text);
}

test(
  'official TypeScript client: Dataset published, read back row by row, Evaluation over it',
  { timeout: 180_000 },
  async (t) => {
    const server = await startServerProcess(t);
    const apiKey = await server.createKey('acme', { user: 'alice' });
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-ts-dataset-'));
    t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));

    const run = await runTsScript<DatasetEvalOutput>(t, 'dataset-eval.ts', {
      serverUrl: server.url,
      apiKey,
      cwd,
      timeoutMs: 120_000,
    });
    const out = run.output;
    assert.ok(out, `the script wrote no output\n${describeScriptRun(run)}`);
    assert.deepEqual(
      failedExchanges(out.exchanges).map((e) => `${e.method} ${e.path} → ${e.status}`),
      [],
      describeScriptRun(run),
    );
    assert.deepEqual(out.unhandledRejections, [], describeScriptRun(run));
    assert.equal(out.failure, null, describeScriptRun(run));
    assert.equal(out.finished, true, describeScriptRun(run));
    assert.equal(run.code, 0, describeScriptRun(run));
    assert.equal(run.errorsLog, null, 'the client wrote weaveErrors.log');

    const tableCreates = out.exchanges.filter((e) => e.path === '/table/create');
    assert.equal(tableCreates.length, 1, 'one /table/create');
    const table = responseJson(tableCreates[0]!) as { digest: string; row_digests: string[] };
    const datasetUri = String(out.datasetUri);
    const rowRefs = table.row_digests.map((d) => `${datasetUri}/attr/rows/id/${d}`);

    await t.test('publish: /table/create with the rows, then /obj/create of a Dataset pointing at the table', () => {
      assert.deepEqual(requestJson(tableCreates[0]!).table, { project_id: PROJECT, rows: DATASET_ROWS });
      assert.match(table.digest, /^[0-9a-f]{64}$/);
      assert.equal(table.row_digests.length, DATASET_ROWS.length);
      const [, digest] = new RegExp(`^weave:///${PROJECT}/object/${DATASET_NAME}:(${D43})$`).exec(datasetUri) ?? [];
      assert.ok(digest, `dataset ref ${datasetUri}`);
      const create = out.exchanges.find(
        (e) => e.path === '/obj/create' && requestJson(e).obj.object_id === DATASET_NAME,
      );
      assert.ok(create, 'no /obj/create of the dataset');
      assert.deepEqual(requestJson(create).obj.val, {
        _type: 'Dataset',
        _class_name: 'Dataset',
        _bases: ['Object', 'BaseModel'],
        name: DATASET_NAME,
        description: 'arithmetic questions',
        rows: `weave:///${PROJECT}/table/${table.digest}`,
      });
      assert.equal(responseJson(create).digest, digest, 'the ref carries the digest /obj/create answered');
    });

    await t.test('the published Dataset hands out row refs built from /table/query row digests', () => {
      assert.deepEqual(out.publishedRowRefs, rowRefs);
    });

    await t.test('read back through ObjectRef.get(): /obj/read, /table/query, rows in order with their refs', () => {
      assert.equal(out.readBackClass, 'Dataset');
      assert.equal(out.readBackLength, DATASET_ROWS.length);
      assert.deepEqual(
        out.readBackRows.map((r) => r.val),
        DATASET_ROWS,
      );
      assert.deepEqual(
        out.readBackRows.map((r) => r.ref),
        rowRefs,
      );
      const digest = datasetUri.split(':').at(-1);
      const read = out.exchanges.find((e) => e.path === '/obj/read');
      assert.deepEqual(requestJson(read!), { project_id: PROJECT, object_id: DATASET_NAME, digest });
      const queries = out.exchanges.filter((e) => e.path === '/table/query');
      // one from publish (row refs), one from the read-back; both by the table digest, no paging
      assert.deepEqual(queries.map(requestJson), [
        { project_id: PROJECT, digest: table.digest },
        { project_id: PROJECT, digest: table.digest },
      ]);
    });

    await t.test('the row refs resolve over /refs/read_batch', async () => {
      const read = await postOk(server.url, apiKey, '/refs/read_batch', { refs: rowRefs });
      assert.deepEqual(read.vals, DATASET_ROWS);
    });

    const calls = await streamAllCalls(server.url, apiKey, PROJECT);
    const opName = (call: Call): string => OP_REF.exec(String(call.op_name))?.[1] ?? `<not an op ref: ${call.op_name}>`;
    const byOp = (name: string): Call[] => calls.filter((c) => opName(c) === name);

    await t.test('the evaluation calls exist: evaluate → predictAndScore per row → model and scorer', () => {
      assert.deepEqual([...new Set(calls.map(opName))].sort(), [
        'Evaluation.evaluate',
        'Evaluation.predictAndScore',
        'arithModel',
        'exactMatch',
      ]);
      const [evaluate] = byOp('Evaluation.evaluate');
      assert.ok(evaluate !== undefined);
      assert.equal(byOp('Evaluation.evaluate').length, 1);
      assert.equal(evaluate.parent_id, null);
      assert.equal(evaluate.display_name, `${EVAL_NAME}_arithModel`);
      assert.match(evaluate.inputs.self, new RegExp(`^weave:///${PROJECT}/object/${EVAL_NAME}:${D43}$`));
      assert.equal(opName({ op_name: evaluate.inputs.model }), 'arithModel');
      assert.deepEqual(evaluate.output.exactMatch, { true_count: 3, true_fraction: 0.75 });
      assert.deepEqual(evaluate.output, out.summary);
      for (const c of calls) {
        assert.equal(c.trace_id, evaluate.trace_id, `trace of ${opName(c)}`);
        assert.notEqual(c.ended_at, null);
        assert.equal(c.exception, null);
      }
      const predicts = byOp('Evaluation.predictAndScore');
      assert.equal(predicts.length, DATASET_ROWS.length);
      for (const p of predicts) assert.equal(p.parent_id, evaluate.id);
      for (const name of ['arithModel', 'exactMatch']) {
        const children = byOp(name);
        assert.equal(children.length, DATASET_ROWS.length, `calls of ${name}`);
        assert.deepEqual(
          children.map((c) => c.parent_id).sort(),
          predicts.map((p) => p.id).sort(),
          `parents of ${name}`,
        );
      }
    });

    await t.test('predict-and-score, model and scorer inputs reference the dataset rows', () => {
      const predicts = byOp('Evaluation.predictAndScore');
      assert.deepEqual(predicts.map((p) => p.inputs.example).sort(), [...rowRefs].sort());
      for (const p of predicts) {
        const row = DATASET_ROWS[rowRefs.indexOf(p.inputs.example)]!;
        assert.deepEqual(Object.keys(p.inputs).sort(), ['example', 'model', 'self']);
        assert.equal(p.inputs.self, byOp('Evaluation.evaluate')[0]!.inputs.self);
        const model = byOp('arithModel').find((c) => c.parent_id === p.id);
        const scorer = byOp('exactMatch').find((c) => c.parent_id === p.id);
        assert.deepEqual(model?.inputs, { arg0: { datasetRow: p.inputs.example } });
        assert.deepEqual(scorer?.inputs, { arg0: { datasetRow: p.inputs.example, modelOutput: model?.output } });
        assert.equal(scorer?.output, model?.output === row.expected, `score for ${row.id}`);
        assert.equal(p.output.scores.exactMatch, row.id !== 'r3', `predictAndScore output for ${row.id}`);
      }
    });

    // docs/spec/calls.md §5.6: row refs (`.../attr/rows/id/<d>`) expand to their rows, as the UI's evaluation views ask
    await t.test('expand_columns resolves the row refs in the predict-and-score inputs', async () => {
      const res = await postOk(server.url, apiKey, '/calls/query', {
        project_id: PROJECT,
        filter: { op_names: [byOp('Evaluation.predictAndScore')[0]!.op_name] },
        expand_columns: ['inputs.example'],
      });
      assert.equal(res.calls.length, DATASET_ROWS.length);
      for (const c of res.calls) {
        assert.equal(
          typeof c.inputs.example,
          'object',
          `inputs.example not expanded: ${JSON.stringify(c.inputs.example)}`,
        );
        const { _ref, ...val } = c.inputs.example;
        assert.ok(rowRefs.includes(_ref), `expanded _ref ${_ref}`);
        assert.deepEqual(val, DATASET_ROWS[rowRefs.indexOf(_ref)]);
      }
    });

    await t.test('the Evaluation object references the dataset and the scorer op', async () => {
      const evalRef = byOp('Evaluation.evaluate')[0]!.inputs.self as string;
      const digest = evalRef.split(':').at(-1);
      const { obj } = await postOk(server.url, apiKey, '/obj/read', {
        project_id: PROJECT,
        object_id: EVAL_NAME,
        digest,
      });
      assert.equal(obj.base_object_class, 'Evaluation');
      assert.equal(obj.val.dataset, datasetUri);
      assert.deepEqual(
        obj.val.scorers.map((s: string) => opName({ op_name: s })),
        ['exactMatch'],
      );
    });

    assert.equal(await server.stop(), 0, `server exit code\n${server.output().slice(-2000)}`);
  },
);
