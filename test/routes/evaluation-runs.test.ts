import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { basicAuth, buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';

/** Evaluation runs, predictions, scores and eval results (docs/spec/evaluations.md §3–§4; checklist 22–42). */

type Json = Record<string, any>;
const V2 = `/v2/${PROJECT}`;
const EVAL = `weave:///${PROJECT}/object/qa_eval:Ev1`;
const MODEL = `weave:///${PROJECT}/object/gpt_small:Md1`;
const OTHER_MODEL = `weave:///${PROJECT}/object/gpt_large:Md2`;
const EXACT = `weave:///${PROJECT}/object/exact:Sc1`;
const JUDGE = `weave:///${PROJECT}/object/judge:Sc2`;

async function ok(pending: Promise<LightMyRequestResponse>): Promise<Json> {
  const res = await pending;
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const del = (h: TestApp, path: string): Promise<LightMyRequestResponse> =>
  h.app.inject({ method: 'DELETE', url: `${V2}/${path}`, headers: { authorization: basicAuth(h.aliceKey) } });

async function list(h: TestApp, path: string): Promise<Json[]> {
  const res = await h.get(`${V2}/${path}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/jsonl/);
  return parseJsonl(res.body);
}

const createRun = async (h: TestApp, model = MODEL, evaluation = EVAL): Promise<string> =>
  (await ok(h.post(`${V2}/evaluation_runs`, { evaluation, model }))).evaluation_run_id;

const predict = async (h: TestApp, body: Json): Promise<string> =>
  (await ok(h.post(`${V2}/predictions`, { model: MODEL, ...body }))).prediction_id;

const score = async (h: TestApp, body: Json): Promise<string> =>
  (await ok(h.post(`${V2}/scores`, { scorer: EXACT, ...body }))).score_id;

const readCall = async (h: TestApp, id: string): Promise<Json> =>
  (await ok(h.post('/call/read', { project_id: PROJECT, id }))).call;

const children = async (h: TestApp, parentId: string): Promise<Json[]> => {
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { parent_ids: [parentId] } });
  assert.equal(res.statusCode, 200, res.body);
  return parseJsonl(res.body);
};

const opName = (call: Json): string => String(call.op_name).split('/').pop()!.split(':')[0]!;

/** One prediction in a run, scored and finished. */
async function scoredPrediction(
  h: TestApp,
  runId: string,
  inputs: Json,
  output: unknown,
  scores: Json,
): Promise<string> {
  const predictionId = await predict(h, { inputs, output, evaluation_run_id: runId });
  for (const [scorer, value] of Object.entries(scores)) {
    await score(h, { prediction_id: predictionId, scorer, value, evaluation_run_id: runId });
  }
  await ok(h.post(`${V2}/predictions/${predictionId}/finish`, {}));
  return predictionId;
}

const evalResults = (h: TestApp, body: Json): Promise<Json> => ok(h.post(`${V2}/eval_results/query`, body));

test('22: a created run reads back running, with its evaluation and model', async (t) => {
  const h = await buildTestApp(t);
  const id = await createRun(h);
  const run = await ok(h.get(`${V2}/evaluation_runs/${id}`));
  assert.equal(run.evaluation_run_id, id);
  assert.equal(run.evaluation, EVAL);
  assert.equal(run.model, MODEL);
  assert.equal(run.status, 'running');
  assert.match(run.started_at, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.equal(run.finished_at, null);
});

test('23: the run is an Evaluation.evaluate trace root with the run marker', async (t) => {
  const h = await buildTestApp(t);
  const id = await createRun(h);
  const call = await readCall(h, id);
  assert.match(call.op_name, /^weave:\/\/\/acme\/demo\/op\/Evaluation\.evaluate:/);
  assert.equal(call.trace_id, id);
  assert.equal(call.parent_id, null);
  assert.deepEqual(call.inputs, { self: EVAL, model: MODEL });
  assert.equal(call.attributes.weave.evaluation_run, 'true');
});

test('24: unknown run, prediction and score ids are 404 with a reason', async (t) => {
  const h = await buildTestApp(t);
  for (const path of ['evaluation_runs', 'predictions', 'scores']) {
    const res = await h.get(`${V2}/${path}/0195a1c2-0000-7000-8000-000000000000`);
    assert.equal(res.statusCode, 404, path);
    assert.ok(res.json().reason);
  }
  // a run is not a prediction
  const runId = await createRun(h);
  assert.equal((await h.get(`${V2}/predictions/${runId}`)).statusCode, 404);
});

test('25: the run list filters by evaluations, models and ids (AND) and pages; it is JSONL', async (t) => {
  const h = await buildTestApp(t);
  const a = await createRun(h, MODEL);
  const b = await createRun(h, OTHER_MODEL);
  const c = await createRun(h, MODEL, `weave:///${PROJECT}/object/other_eval:Ev2`);
  assert.deepEqual(
    (await list(h, 'evaluation_runs')).map((r) => r.evaluation_run_id),
    [a, b, c],
  );
  assert.deepEqual(
    (await list(h, `evaluation_runs?models=${encodeURIComponent(MODEL)}`)).map((r) => r.evaluation_run_id),
    [a, c],
  );
  assert.deepEqual(
    (await list(h, `evaluation_runs?models=${encodeURIComponent(MODEL)}&evaluations=${encodeURIComponent(EVAL)}`)).map(
      (r) => r.evaluation_run_id,
    ),
    [a],
  );
  assert.deepEqual(
    (await list(h, `evaluation_runs?evaluation_run_ids=${b}&evaluation_run_ids=${c}`)).map((r) => r.evaluation_run_id),
    [b, c],
  );
  assert.deepEqual(
    (await list(h, 'evaluation_runs?limit=1&offset=1')).map((r) => r.evaluation_run_id),
    [b],
  );
  assert.equal((await h.get(`${V2}/evaluation_runs?limit=-1`)).statusCode, 400);
  assert.equal((await h.get(`${V2}/evaluation_runs?limit=x`)).statusCode, 422);
});

test('26: finishing a run completes it with the given summary', async (t) => {
  const h = await buildTestApp(t);
  const id = await createRun(h);
  assert.deepEqual(await ok(h.post(`${V2}/evaluation_runs/${id}/finish`, { summary: { accuracy: 0.95 } })), {
    success: true,
  });
  const run = await ok(h.get(`${V2}/evaluation_runs/${id}`));
  assert.equal(run.status, 'completed');
  assert.ok(run.finished_at);
  assert.equal(run.summary.accuracy, 0.95);
  assert.equal(run.summary.weave.status, 'success');
});

test('27-28: finish adds one Evaluation.summarize child whose output is the run output: score means and the numeric output mean', async (t) => {
  const h = await buildTestApp(t);
  const id = await createRun(h);
  await scoredPrediction(h, id, { q: 1 }, 4, { [EXACT]: 1, [JUDGE]: true });
  await scoredPrediction(h, id, { q: 2 }, 6, { [EXACT]: 0, [JUDGE]: false });
  await predict(h, { inputs: { q: 3 }, output: 100, evaluation_run_id: id }); // never finished: no output
  await ok(h.post(`${V2}/evaluation_runs/${id}/finish`, {}));
  const summarize = (await children(h, id)).filter((c) => c.op_name === 'Evaluation.summarize');
  assert.equal(summarize.length, 1);
  const run = await readCall(h, id);
  assert.deepEqual(run.output, { exact: { mean: 0.5 }, output: { mean: 5 } });
  assert.deepEqual(summarize[0]!.output, run.output);
  // a second finish, sent without a body, changes nothing
  await ok(
    h.app.inject({
      method: 'POST',
      url: `${V2}/evaluation_runs/${id}/finish`,
      headers: { authorization: basicAuth(h.aliceKey) },
    }),
  );
  assert.equal((await children(h, id)).filter((c) => c.op_name === 'Evaluation.summarize').length, 1);
});

test('29: run delete needs ids (422) and removes the run with its descendants', async (t) => {
  const h = await buildTestApp(t);
  assert.equal((await del(h, 'evaluation_runs')).statusCode, 422);
  const id = await createRun(h);
  await scoredPrediction(h, id, { q: 1 }, 4, { [EXACT]: 1 });
  const res = await del(
    h,
    `evaluation_runs?evaluation_run_ids=${id}&evaluation_run_ids=0195a1c2-0000-7000-8000-00000000dead`,
  );
  assert.equal(res.statusCode, 200, res.body);
  // run + predict_and_score + prediction + score
  assert.equal(res.json().num_deleted, 4);
  assert.equal((await h.get(`${V2}/evaluation_runs/${id}`)).statusCode, 404);
});

test('30: a standalone prediction is its own trace root with op <model>.predict', async (t) => {
  const h = await buildTestApp(t);
  const id = await predict(h, { inputs: { q: '2+2?' }, output: { answer: '4' } });
  const read = await ok(h.get(`${V2}/predictions/${id}`));
  assert.deepEqual(read.inputs, { q: '2+2?' });
  assert.deepEqual(read.output, { answer: '4' });
  assert.equal(read.evaluation_run_id, null);
  assert.equal(read.model, MODEL);
  const call = await readCall(h, id);
  assert.equal(call.trace_id, id);
  assert.equal(call.parent_id, null);
  assert.equal(opName(call), 'gpt_small.predict');
  assert.ok(call.ended_at);
});

test('31: a prediction in a run hangs under Evaluation.predict_and_score, whose inputs.example are the prediction inputs', async (t) => {
  const h = await buildTestApp(t);
  const runId = await createRun(h);
  const id = await predict(h, { inputs: { q: 'x' }, output: 'y', evaluation_run_id: runId });
  const call = await readCall(h, id);
  const parent = await readCall(h, call.parent_id);
  assert.equal(opName(parent), 'Evaluation.predict_and_score');
  assert.equal(parent.parent_id, runId);
  assert.equal(parent.trace_id, runId);
  assert.deepEqual(parent.inputs.example, { q: 'x' });
  assert.equal((await ok(h.get(`${V2}/predictions/${id}`))).evaluation_run_id, runId);
});

test('32: a prediction for an unknown run is 404', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post(`${V2}/predictions`, {
    model: MODEL,
    inputs: {},
    output: 1,
    evaluation_run_id: '0195a1c2-0000-7000-8000-000000000000',
  });
  assert.equal(res.statusCode, 404);
  assert.equal((await h.post(`${V2}/predictions`, { model: MODEL, inputs: {} })).statusCode, 422, 'output is required');
});

test('33: finishing a prediction ends predict_and_score with output, scores by scorer name and latency', async (t) => {
  const h = await buildTestApp(t);
  const runId = await createRun(h);
  const id = await scoredPrediction(h, runId, { q: 1 }, 'four', { [EXACT]: 1, [JUDGE]: { passed: true } });
  const parent = await readCall(h, (await readCall(h, id)).parent_id);
  assert.equal(parent.output.output, 'four');
  assert.deepEqual(parent.output.scores, { exact: 1, judge: { passed: true } });
  assert.ok(parent.output.model_latency.mean >= 0);
  assert.ok(parent.ended_at);
});

test('34: the prediction list of a run holds only that run’s predictions', async (t) => {
  const h = await buildTestApp(t);
  const a = await createRun(h);
  const b = await createRun(h);
  const inA = await predict(h, { inputs: { q: 1 }, output: 1, evaluation_run_id: a });
  await predict(h, { inputs: { q: 2 }, output: 2, evaluation_run_id: b });
  const standalone = await predict(h, { inputs: { q: 3 }, output: 3 });
  assert.deepEqual(
    (await list(h, `predictions?evaluation_run_id=${a}`)).map((p) => p.prediction_id),
    [inA],
  );
  assert.ok((await list(h, 'predictions')).some((p) => p.prediction_id === standalone));
  assert.equal((await list(h, 'predictions')).length, 3);
});

test('35: a score with an object value reads back unchanged with its scorer and run', async (t) => {
  const h = await buildTestApp(t);
  const runId = await createRun(h);
  const predictionId = await predict(h, { inputs: { q: 1 }, output: 1, evaluation_run_id: runId });
  const id = await score(h, { prediction_id: predictionId, value: { passed: true }, evaluation_run_id: runId });
  const read = await ok(h.get(`${V2}/scores/${id}`));
  assert.deepEqual(read.value, { passed: true });
  assert.equal(read.scorer, EXACT);
  assert.equal(read.evaluation_run_id, runId);
  assert.deepEqual(
    (await list(h, `scores?evaluation_run_id=${runId}`)).map((s) => s.score_id),
    [id],
  );
  const call = await readCall(h, id);
  assert.equal(opName(call), 'exact.score');
  assert.equal(opName(await readCall(h, call.parent_id)), 'Evaluation.predict_and_score');
});

test('36: a score adds runnable feedback on the prediction call', async (t) => {
  const h = await buildTestApp(t);
  const predictionId = await predict(h, { inputs: { q: 1 }, output: 1 });
  await score(h, { prediction_id: predictionId, value: 0.5 });
  const { result } = await ok(
    h.post('/feedback/query', {
      project_id: PROJECT,
      query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.runnable.exact' }] } },
    }),
  );
  assert.equal(result.length, 1);
  assert.equal(result[0].weave_ref, `weave:///${PROJECT}/call/${predictionId}`);
  assert.deepEqual(result[0].payload, { output: 0.5 });
  assert.equal(result[0].runnable_ref, EXACT);
});

test('37: a scorer that is not an object ref is 400; an unknown prediction is 404', async (t) => {
  const h = await buildTestApp(t);
  const predictionId = await predict(h, { inputs: {}, output: 1 });
  for (const scorer of ['exact', `weave:///${PROJECT}/op/exact:abc`, `weave:///${PROJECT}/call/x`]) {
    const res = await h.post(`${V2}/scores`, { prediction_id: predictionId, scorer, value: 1 });
    assert.equal(res.statusCode, 400, scorer);
    assert.match(res.json().reason, /object ref/);
  }
  const res = await h.post(`${V2}/scores`, { prediction_id: 'nope', scorer: EXACT, value: 1 });
  assert.equal(res.statusCode, 404);
});

/** Run A: rows {q:1} and {q:2}; run B: row {q:1}. */
async function twoRuns(h: TestApp): Promise<{ a: string; b: string }> {
  const a = await createRun(h);
  await scoredPrediction(h, a, { q: 1 }, 'x', { [EXACT]: 1, [JUDGE]: { passed: true } });
  await scoredPrediction(h, a, { q: 2 }, 'y', { [EXACT]: 0, [JUDGE]: { passed: false } });
  const b = await createRun(h, OTHER_MODEL);
  await scoredPrediction(h, b, { q: 1 }, 'z', { [EXACT]: 1, [JUDGE]: { passed: false } });
  return { a, b };
}

test('38: require_intersection keeps only rows present in every evaluation', async (t) => {
  const h = await buildTestApp(t);
  const { a, b } = await twoRuns(h);
  const both = await evalResults(h, { evaluation_call_ids: [a, b], require_intersection: true });
  assert.equal(both.total_rows, 1);
  assert.deepEqual(
    both.rows[0].evaluations.map((e: Json) => e.evaluation_call_id),
    [a, b],
  );
  const trial = both.rows[0].evaluations[0].trials[0];
  assert.equal(trial.model_output, 'x');
  assert.deepEqual(trial.scores, { exact: 1, judge: { passed: true } });
  assert.ok(trial.predict_call_id);
  assert.deepEqual(Object.keys(trial.scorer_call_ids).sort(), ['exact', 'judge']);
  assert.ok(trial.model_latency_seconds >= 0);
  assert.equal((await evalResults(h, { evaluation_call_ids: [a, b] })).total_rows, 2);
});

test('39: rows are ordered by row digest; limit/offset page while total_rows counts all', async (t) => {
  const h = await buildTestApp(t);
  const { a, b } = await twoRuns(h);
  const all = await evalResults(h, { evaluation_call_ids: [a, b] });
  const digests = all.rows.map((r: Json) => r.row_digest);
  assert.deepEqual(digests, [...digests].sort());
  const page = await evalResults(h, { evaluation_call_ids: [a, b], limit: 1, offset: 1 });
  assert.equal(page.total_rows, 2);
  assert.deepEqual(
    page.rows.map((r: Json) => r.row_digest),
    [digests[1]],
  );
});

test('40: evaluation_run_ids is an alias of evaluation_call_ids; a repeated id counts once', async (t) => {
  const h = await buildTestApp(t);
  const { a, b } = await twoRuns(h);
  const byCalls = await evalResults(h, { evaluation_call_ids: [a, b], include_summary: true });
  const byRuns = await evalResults(h, { evaluation_run_ids: [a, b], include_summary: true });
  const mixed = await evalResults(h, { evaluation_call_ids: [a], evaluation_run_ids: [a, b], include_summary: true });
  assert.deepEqual(byRuns, byCalls);
  assert.deepEqual(mixed, byCalls);
  assert.equal(byCalls.summary.evaluations.length, 2);
});

test('41: no ids gives no rows and a null summary', async (t) => {
  const h = await buildTestApp(t);
  assert.deepEqual(await evalResults(h, {}), { rows: [], total_rows: 0, summary: null, warnings: [] });
});

test('42: summary without rows: booleans are binary with a pass rate, numbers continuous with a mean', async (t) => {
  const h = await buildTestApp(t);
  const { a } = await twoRuns(h);
  const res = await evalResults(h, { evaluation_call_ids: [a], include_rows: false, include_summary: true });
  assert.deepEqual(res.rows, []);
  assert.equal(res.total_rows, 0);
  assert.equal(res.summary.row_count, 2);
  const [evaluation] = res.summary.evaluations;
  assert.equal(evaluation.trial_count, 2);
  assert.equal(evaluation.evaluation_ref, EVAL);
  assert.equal(evaluation.model_ref, MODEL);
  const stats = Object.fromEntries(evaluation.scorer_stats.map((s: Json) => [`${s.scorer_key}:${s.path}`, s]));
  assert.equal(stats['judge:passed'].value_type, 'binary');
  assert.equal(stats['judge:passed'].pass_rate, 0.5);
  assert.equal(stats['judge:passed'].pass_signal_coverage, 1);
  assert.equal(stats['exact:null'].value_type, 'continuous');
  assert.equal(stats['exact:null'].numeric_mean, 0.5);
  assert.equal(stats['exact:null'].pass_rate, null);
});

test('eval_results filters and sorts: by score, per evaluation, by difference; bad fields are 400', async (t) => {
  const h = await buildTestApp(t);
  const { a, b } = await twoRuns(h);
  const exactIsOne = { $expr: { $eq: [{ $getField: 'scores.exact' }, { $literal: 1 }] } };
  const ids = { evaluation_call_ids: [a, b] };
  // row {q:1} has exact 1 in both; row {q:2} exact 0 in A
  assert.equal((await evalResults(h, { ...ids, filters: [{ query: exactIsOne }] })).total_rows, 1);
  assert.equal(
    (await evalResults(h, { ...ids, filters: [{ query: exactIsOne, evaluation_call_id: b }] })).total_rows,
    1,
  );
  const byInput = { $expr: { $gt: [{ $getField: 'inputs.q' }, { $literal: 1 }] } };
  const filtered = await evalResults(h, { ...ids, filters: [{ query: byInput }], include_raw_data_rows: true });
  assert.deepEqual(
    filtered.rows.map((r: Json) => r.raw_data_row),
    [{ q: 2 }],
  );
  const sorted = await evalResults(h, {
    ...ids,
    include_raw_data_rows: true,
    sort_by: [{ field: 'scores.exact', direction: 'asc' }],
  });
  assert.deepEqual(
    sorted.rows.map((r: Json) => r.raw_data_row),
    [{ q: 2 }, { q: 1 }],
  );
  const diff = await evalResults(h, {
    ...ids,
    include_raw_data_rows: true,
    sort_by: [{ field: 'scores.judge.passed', direction: 'desc', mode: 'difference' }],
  });
  assert.deepEqual(diff.rows[0].raw_data_row, { q: 1 }, 'the row where the runs disagree comes first');
  const bad = await h.post(`${V2}/eval_results/query`, { ...ids, sort_by: [{ field: 'nope.x', direction: 'asc' }] });
  assert.equal(bad.statusCode, 400);
  const badMode = await h.post(`${V2}/eval_results/query`, {
    ...ids,
    sort_by: [{ field: 'output', direction: 'asc', mode: 'difference' }],
  });
  assert.equal(badMode.statusCode, 400);
});

test('evaluation runs are tenant-scoped like every project route', async (t) => {
  const h = await buildTestApp(t);
  const id = await createRun(h);
  const res = await h.app.inject({
    method: 'GET',
    url: `${V2}/evaluation_runs/${id}`,
    headers: { authorization: basicAuth(h.bobKey) },
  });
  assert.equal(res.statusCode, 403);
});
