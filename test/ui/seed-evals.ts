/**
 * Evaluation data for the UI tests and screenshots, written through the public HTTP API in the shapes
 * the clients write (docs/spec/evaluations.md §3, §6.2, §7): two declarative `Evaluation.evaluate`
 * runs over one dataset that differ in exactly one row, an `EvaluationLogger` run, a run made through
 * the v2 evaluation-run API, and a server-side run still in progress (5 of 12 rows done).
 */

type Post = (path: string, body: unknown) => Promise<Record<string, unknown>>;

export interface SeededEvals {
  /** Evaluation root call ids. */
  small: string;
  large: string;
  logger: string;
  apiRun: string;
  running: string;
  /** The question of the one row where `small` and `large` differ. */
  diffQuestion: string;
  datasetDigest: string;
  evaluationDigest: string;
}

const QUESTIONS: [string, string][] = [
  ['What is 2 + 2?', '4'],
  ['Capital of France?', 'Paris'],
  ['How many legs has a spider?', '8'],
  ['Largest planet?', 'Jupiter'],
  ['Boiling point of water at sea level in °C?', '100'],
  ['Author of "Hamlet"?', 'Shakespeare'],
  ['What is 7 × 8?', '56'],
  ['Chemical symbol for gold?', 'Au'],
  ['Square root of 81?', '9'],
  ['Fastest land animal?', 'Cheetah'],
  ['How many continents are there?', '7'],
  ['Freezing point of water in °F?', '32'],
];
/** The row index where the small model answers wrongly and the large one right. */
const DIFF_ROW = 6;

/**
 * Seeds the evaluations. `t0` is the first start time (ms); everything lies before the other seed
 * data so that the traces table's first page looks as it did.
 */
export async function seedEvaluations(post: Post, project: string, t0: number): Promise<SeededEvals> {
  const iso = (ms: number) => new Date(ms).toISOString();
  let n = 0;
  const nextId = () => `0194f3a1-0000-7000-8000-${String(++n).padStart(12, '0')}`;
  const opRef = (name: string) => `weave:///${project}/op/${name}:ev0p${name.length}`;
  const objRef = (name: string, digest: string) => `weave:///${project}/object/${name}:${digest}`;

  const table = (await post('/table/create', {
    table: { project_id: project, rows: QUESTIONS.map(([question, expected]) => ({ question, expected })) },
  })) as { digest: string; row_digests: string[] };
  const dataset = await post('/obj/create', {
    obj: {
      project_id: project,
      object_id: 'qa-questions',
      val: {
        _type: 'Dataset',
        _class_name: 'Dataset',
        _bases: ['Object', 'BaseModel'],
        name: 'qa-questions',
        rows: `weave:///${project}/table/${table.digest}`,
      },
    },
  });
  const datasetRef = objRef('qa-questions', dataset.digest as string);
  const scorer = async (name: string) =>
    objRef(
      name,
      (
        await post('/obj/create', {
          obj: {
            project_id: project,
            object_id: name,
            val: { _type: 'Scorer', _class_name: 'Scorer', _bases: ['Object', 'BaseModel'], name },
          },
        })
      ).digest as string,
    );
  const exactRef = await scorer('exact_match');
  const judgeRef = await scorer('judge');
  const evaluation = await post('/obj/create', {
    obj: {
      project_id: project,
      object_id: 'qa-eval',
      val: {
        _type: 'Evaluation',
        _class_name: 'Evaluation',
        _bases: ['Object', 'BaseModel'],
        name: 'qa-eval',
        dataset: datasetRef,
        scorers: [exactRef, judgeRef],
        trials: 1,
      },
    },
  });
  const evalRef = objRef('qa-eval', evaluation.digest as string);
  const model = async (name: string, val: Record<string, unknown>) =>
    objRef(
      name,
      (
        await post('/obj/create', {
          obj: {
            project_id: project,
            object_id: name,
            val: { _type: 'Model', _class_name: 'Model', _bases: ['Object', 'BaseModel'], name, ...val },
          },
        })
      ).digest as string,
    );
  const smallRef = await model('model-small', { model: 'gpt-4o-mini', temperature: 0 });
  const largeRef = await model('model-large', { model: 'gpt-4o', temperature: 0 });
  const loggerRef = await model('model-logger', { model: 'gpt-4o-mini', temperature: 0.7 });
  const judgeModelRef = await model('model-judge-llm', {
    _class_name: 'LLMStructuredCompletionModel',
    llm_model_id: 'openai/gpt-4o-mini',
  });

  const batch: unknown[] = [];
  const start = (c: {
    id: string;
    op: string;
    trace: string;
    parent?: string;
    at: number;
    inputs: unknown;
    attributes?: unknown;
    display?: string;
  }) =>
    batch.push({
      mode: 'start',
      req: {
        start: {
          project_id: project,
          id: c.id,
          op_name: c.op,
          trace_id: c.trace,
          parent_id: c.parent ?? null,
          started_at: iso(c.at),
          inputs: c.inputs,
          attributes: c.attributes ?? {},
          display_name: c.display,
        },
      },
    });
  const end = (id: string, at: number, output: unknown, summary: unknown = {}) =>
    batch.push({ mode: 'end', req: { end: { project_id: project, id, ended_at: iso(at), output, summary } } });

  /** One declarative-shaped run: a predict_and_score per row with a predict and two scorer children. */
  const declarative = (
    modelRef: string,
    at: number,
    answer: (i: number) => string,
    judge: (i: number) => number,
    opts: { display?: string; attributes?: unknown; rows?: number; open?: boolean } = {},
  ): string => {
    const root = nextId();
    start({
      id: root,
      op: opRef('Evaluation.evaluate'),
      trace: root,
      at,
      inputs: { self: evalRef, model: modelRef },
      display: opts.display,
      attributes: opts.attributes,
    });
    const rows = opts.rows ?? QUESTIONS.length;
    let exactTrue = 0;
    let judgeSum = 0;
    for (let i = 0; i < rows; i++) {
      const t = at + 100 + i * 200;
      const pas = nextId();
      const example = `${datasetRef}/attr/rows/id/${table.row_digests[i]}`;
      const meta = { _weave_eval_meta: { declarative: true } };
      start({
        id: pas,
        op: opRef('Evaluation.predict_and_score'),
        trace: root,
        parent: root,
        at: t,
        inputs: { self: evalRef, model: modelRef, example },
        attributes: meta,
      });
      const predict = nextId();
      start({
        id: predict,
        op: opRef('Model.predict'),
        trace: root,
        parent: pas,
        at: t + 5,
        inputs: { self: modelRef, question: QUESTIONS[i]![0] },
      });
      const output = answer(i);
      const tokens = 40 + ((i * 7) % 13);
      end(predict, t + 120 + i * 3, output, {
        usage: {
          'gpt-4o-mini': { requests: 1, prompt_tokens: tokens - 8, completion_tokens: 8, total_tokens: tokens },
        },
      });
      const exact = output === QUESTIONS[i]![1];
      const score = { exact_match: exact, judge: { score: judge(i) } };
      exactTrue += exact ? 1 : 0;
      judgeSum += judge(i);
      const s1 = nextId();
      start({
        id: s1,
        op: opRef('exact_match'),
        trace: root,
        parent: pas,
        at: t + 130,
        inputs: { self: exactRef, expected: QUESTIONS[i]![1], output },
        attributes: { _weave_eval_meta: { score: true } },
      });
      end(s1, t + 131, exact);
      const s2 = nextId();
      start({
        id: s2,
        op: opRef('judge.score'),
        trace: root,
        parent: pas,
        at: t + 132,
        inputs: { self: judgeRef, output },
        attributes: { _weave_eval_meta: { score: true } },
      });
      end(s2, t + 170, score.judge);
      end(pas, t + 180, { output, scores: score, model_latency: 0.115 + i * 0.003 });
    }
    if (!opts.open) {
      const summary = {
        exact_match: { true_count: exactTrue, true_fraction: exactTrue / rows },
        judge: { score: { mean: judgeSum / rows } },
        model_latency: { mean: 0.13 },
      };
      const sum = nextId();
      start({
        id: sum,
        op: 'Evaluation.summarize',
        trace: root,
        parent: root,
        at: at + 100 + rows * 200,
        inputs: { self: evalRef },
      });
      end(sum, at + 110 + rows * 200, summary);
      end(root, at + 120 + rows * 200, summary, { status_counts: { success: rows * 4 + 2, error: 0 } });
    }
    return root;
  };

  const right = (i: number) => QUESTIONS[i]![1];
  const judgeOf = (i: number) => 7 + (i % 3);
  const small = declarative(
    smallRef,
    t0,
    (i) => (i === DIFF_ROW ? '54' : right(i)),
    (i) => (i === DIFF_ROW ? 2 : judgeOf(i)),
    {
      display: 'qa-eval small',
    },
  );
  const large = declarative(largeRef, t0 + 60_000, right, judgeOf, { display: 'qa-eval large' });
  const running = declarative(judgeModelRef, t0 + 180_000, right, judgeOf, {
    display: 'eval-2026-11-20-brisk-otter',
    attributes: { _weave_eval_meta: { evaluate_model_worker: true } },
    rows: 5,
    open: true,
  });

  // EvaluationLogger (§7.2): inline examples, one op per scorer named after it, summary at the end.
  const logger = nextId();
  const tl = t0 + 120_000;
  const pseudoEval = { _type: 'Evaluation', name: 'logged-qa', dataset: 'logged-qa-dataset', scorers: [] };
  start({
    id: logger,
    op: opRef('Evaluation.evaluate'),
    trace: logger,
    at: tl,
    inputs: { self: pseudoEval, model: loggerRef },
    display: 'logged-qa run',
    attributes: { _weave_eval_meta: { imperative: true } },
  });
  let correct = 0;
  for (let i = 0; i < 4; i++) {
    const t = tl + 100 + i * 100;
    const pas = nextId();
    const example = { question: QUESTIONS[i]![0], expected: QUESTIONS[i]![1] };
    start({
      id: pas,
      op: opRef('Evaluation.predict_and_score'),
      trace: logger,
      parent: logger,
      at: t,
      inputs: { self: pseudoEval, model: loggerRef, example },
    });
    const predict = nextId();
    start({
      id: predict,
      op: opRef('Model.predict'),
      trace: logger,
      parent: pas,
      at: t + 2,
      inputs: { self: loggerRef, inputs: example },
    });
    const output = i === 2 ? 'Saturn' : QUESTIONS[i]![1];
    end(predict, t + 40, output);
    const ok = output === QUESTIONS[i]![1];
    correct += ok ? 1 : 0;
    const sc = nextId();
    start({
      id: sc,
      op: opRef('accuracy'),
      trace: logger,
      parent: pas,
      at: t + 41,
      inputs: { output },
      attributes: { _weave_eval_meta: { imperative: true, score: true } },
    });
    end(sc, t + 42, ok);
    end(pas, t + 50, { output, scores: { accuracy: ok }, model_latency: null });
  }
  const lsum = { accuracy: { true_count: correct, true_fraction: correct / 4 } };
  end(logger, tl + 600, lsum);
  while (batch.length) await post('/call/upsert_batch', { batch: batch.splice(0, 2000) });

  // The v2 evaluation-run API (§3): a run, three predictions with scores, finished.
  const v2 = `/v2/${project}`;
  const run = (await post(`${v2}/evaluation_runs`, { evaluation: evalRef, model: largeRef })) as {
    evaluation_run_id: string;
  };
  for (let i = 0; i < 3; i++) {
    const p = (await post(`${v2}/predictions`, {
      model: largeRef,
      inputs: { question: QUESTIONS[i]![0], expected: QUESTIONS[i]![1] },
      output: QUESTIONS[i]![1],
      evaluation_run_id: run.evaluation_run_id,
    })) as { prediction_id: string };
    await post(`${v2}/scores`, {
      prediction_id: p.prediction_id,
      scorer: exactRef,
      value: 1,
      evaluation_run_id: run.evaluation_run_id,
    });
    await post(`${v2}/predictions/${p.prediction_id}/finish`, {});
  }
  await post(`${v2}/evaluation_runs/${run.evaluation_run_id}/finish`, {});

  return {
    small,
    large,
    logger,
    apiRun: run.evaluation_run_id,
    running,
    diffQuestion: QUESTIONS[DIFF_ROW]![0],
    datasetDigest: dataset.digest as string,
    evaluationDigest: evaluation.digest as string,
  };
}
