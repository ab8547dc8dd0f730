/**
 * Drives the official TypeScript client (npm `weave`, pinned in package.json) against Heddle for
 * test/clients/ts-dataset-eval.test.ts (child process; env as in record-fetch.ts):
 *
 * 1. publishes a weave.Dataset of DATASET_ROWS (client.publish → /table/create + /obj/create),
 * 2. reads it back through the client's ref API (ObjectRef.fromUri(uri).get() → /obj/read, then
 *    /table/query) and walks it row by row, keeping each row's DatasetRowRef,
 * 3. runs a weave.Evaluation over the published dataset with a model op and a scorer op.
 *
 * Every HTTP exchange is recorded; the result goes to HEDDLE_DEMO_OUT.
 */
import * as weave from 'weave';
import { describeError, setUpScript } from './record-fetch.js';
import { DATASET_NAME, DATASET_ROWS, EVAL_NAME, EVAL_PROJECT, type DatasetEvalOutput } from './dataset-eval-output.js';

const output: DatasetEvalOutput = {
  finished: false,
  exitCode: null,
  failure: null,
  unhandledRejections: [],
  exchanges: [],
  datasetUri: null,
  publishedRowRefs: [],
  readBackClass: null,
  readBackLength: null,
  readBackRows: [],
  summary: null,
};
const cancelDeadline = setUpScript(output);

/** A row without the client's bookkeeping key, as plain JSON. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const { __savedRef: _ignored, ...rest } = row;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

async function rowRefUri(row: object): Promise<string | null> {
  const ref = (await (row as { __savedRef?: unknown }).__savedRef) as { uri(): string } | undefined;
  return ref ? ref.uri() : null;
}

try {
  const client = await weave.init(EVAL_PROJECT, { printCallLink: false });

  // 1. publish
  const dataset = new weave.Dataset({
    name: DATASET_NAME,
    description: 'arithmetic questions',
    rows: DATASET_ROWS.map((r) => ({ ...r })),
  });
  const ref = await client.publish(dataset);
  output.datasetUri = ref.uri();
  for (let i = 0; i < dataset.length; i += 1) output.publishedRowRefs.push(await rowRefUri(dataset.getRow(i)));

  // 2. read back through the ref API, row by row
  const got = (await weave.ObjectRef.fromUri(ref.uri()).get()) as weave.Dataset<Record<string, unknown>>;
  output.readBackClass = got?.constructor?.name ?? null;
  output.readBackLength = got.length;
  for await (const row of got) output.readBackRows.push({ val: plainRow(row), ref: await rowRefUri(row) });

  // 3. an evaluation over the dataset: the model answers from a lookup table, wrong on purpose for one row
  const answers: Record<string, string> = { '2+2': '4', '3*3': '9', '10-7': '3', '2**5': '31' };
  const model = weave.op(async function arithModel({ datasetRow }: { datasetRow: { question: string } }) {
    return answers[datasetRow.question] ?? '?';
  });
  const exactMatch = weave.op(async function exactMatch({
    datasetRow,
    modelOutput,
  }: {
    datasetRow: { expected: string };
    modelOutput: string;
  }) {
    return modelOutput === datasetRow.expected;
  });
  const evaluation = new weave.Evaluation({ name: EVAL_NAME, dataset, scorers: [exactMatch] });
  output.summary = await evaluation.evaluate({ model });

  await client.waitForBatchProcessing();
  output.finished = true;
} catch (error) {
  output.failure = describeError(error);
  process.exitCode = 1;
} finally {
  cancelDeadline();
}
