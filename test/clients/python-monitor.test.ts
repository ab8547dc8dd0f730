import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { providerEnv, startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { startServerProcess } from '../helpers/server-process.js';
import { runPythonDemo } from './python-script.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from './python-venv.js';

/**
 * Online monitors through the official Python client (docs/monitors.md): a `weave.Monitor`
 * published and activated from Python makes Heddle score later calls of the named op with an
 * `LLMAsAJudgeScorer` it runs itself (its judge served by an OpenAI-compatible fake), and the
 * feedback shows in `client.get_calls(include_feedback=True)`; `call.apply_scorer` (a scorer the
 * client runs) lands as runnable feedback too.
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'monitor_demo.py');
const PROJECT = 'acme/monitordemo';

test(`weave.Monitor and call.apply_scorer through weave==${WEAVE_PY_VERSION}`, { timeout: 10 * 60_000 }, async (t) => {
  const venv = await ensureWeaveVenv();
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
    t.skip(`weave==${WEAVE_PY_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
    return;
  }
  const fake = await startFakeOpenAi(t);
  const server = await startServerProcess(t, {
    env: {
      ...providerEnv(fake.baseUrl),
      HEDDLE_PROVIDER_MAX_RETRIES: '2',
      HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
      HEDDLE_MONITOR_POLL_MS: '50',
    },
  });
  const key = await server.createKey('acme', { user: 'alice' });
  const { result, log } = await runPythonDemo(venv.python, SCRIPT, server, key, [PROJECT]);

  // the client stores full op refs and the active flag (weave/flow/monitor.py)
  assert.deepEqual(
    result.monitor,
    {
      active: true,
      sampling_rate: 1,
      op_names: [`weave:///${PROJECT}/op/solve:*`],
    },
    log,
  );
  const monitored = Object.values(result.monitored as Record<string, Array<Record<string, any>>>);
  assert.equal(monitored.length, 3, log);
  for (const items of monitored) {
    assert.equal(items.length, 1, log);
    const [item] = items;
    assert.equal(item!.feedback_type, 'wandb.runnable.correctness', log);
    assert.deepEqual(item!.payload, { output: { score: 9, pass: true } }, log);
    assert.equal(item!.trigger_ref, result.monitor_ref, log);
    assert.match(String(item!.runnable_ref), new RegExp(`^weave:///${PROJECT}/object/correctness:`), log);
  }
  assert.deepEqual(result.others, [[]], 'an op the monitor does not name is not scored');
  assert.deepEqual(result.apply_scorer.result, { correct: true }, log);
  assert.equal(result.apply_scorer.feedback.length, 1, log);
  assert.deepEqual(result.apply_scorer.feedback[0].payload, { output: { correct: true } }, log);
  assert.match(String(result.apply_scorer.feedback[0].runnable_ref), /\/object\/ExactAnswer:/, log);
  // the judge saw each solve call once, the apply_scorer one (a solve call too) included
  const judged = fake.requests.filter((r) => r.model === 'judge' && r.status === 200);
  assert.equal(judged.length, 4, log);
  assert.match(String(judged[0]!.body.messages.at(-1).content), /^Expected \d+; got \{"answer":\d+\}$/);
});
