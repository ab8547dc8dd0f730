/**
 * The evaluation comparison against data written by the official Python client
 * (test/clients/python/ui_eval_demo.py: one weave.Evaluation run for two models that differ in one
 * row), on a real Heddle process: the compare page, ordered by the largest difference in the
 * `exact` score, shows the differing row first. Needs `npm run build`, Chromium and the Python venv;
 * skipped without them except under CI=true.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';
import { runPythonDemo } from '../clients/python-script.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from '../clients/python-venv.js';
import { chromiumPath, ensureChromium, launch } from '../helpers/browser.js';
import { distBuilt, serveUi, signIn } from './harness.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(HERE, '..', 'clients', 'python', 'ui_eval_demo.py');
const PROJECT = 'acme/evalui';
const ci = process.env.CI === 'true';
const skip = !(ci ? await ensureChromium() : chromiumPath())
  ? 'Chromium not installed (apt-get install -y chromium)'
  : !distBuilt() || !fs.existsSync(path.join(HERE, '..', '..', 'dist', 'main.js'))
    ? 'not built (npm run build)'
    : false;

test(
  `compare two evaluations written by weave==${WEAVE_PY_VERSION}: the differing row first`,
  { skip, timeout: 10 * 60_000 },
  async (t) => {
    const venv = await ensureWeaveVenv();
    if (!venv.ok) {
      if (ci) assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
      t.skip(`weave==${WEAVE_PY_VERSION} unavailable`);
      return;
    }
    const server = await startServerProcess(t);
    const key = await server.createKey('acme', { user: 'alice' });
    const { result, log } = await runPythonDemo(venv.python, SCRIPT, server, key, [PROJECT]);
    assert.ok(result.small_id && result.large_id, log);
    const url = await serveUi(t, server.url, [PROJECT]);
    const browser = await launch();
    t.after(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, url, key);

    await page.goto(`${url}/${PROJECT}/weave/evaluations`);
    await page.getByRole('checkbox', { name: 'Select arith calc_small' }).check();
    await page.getByRole('checkbox', { name: 'Select arith calc_large' }).check();
    await page.getByRole('button', { name: 'Compare 2 runs' }).click();
    await page.getByText('3 of 3 rows loaded').waitFor();
    const board = await page.getByRole('table', { name: 'Leaderboard' }).getByRole('row').allInnerTexts();
    assert.match(board[1]!, /^1\s+arith calc_large\s+calc_large\s+100\.0% ★ best/, log);
    assert.match(board[2]!, /^2\s+arith calc_small\s+calc_small\s+66\.7%/);
    await page.getByLabel('Order').selectOption({ label: 'Largest difference in exact first' });
    const first = page.getByRole('table', { name: 'Rows' }).locator('.body-row').first();
    await first.filter({ hasText: '3+3' }).waitFor();
    assert.match(await first.innerText(), /≠ differs[\s\S]*\n7\nexact: ✕ false[\s\S]*\n6\nexact: ✓ true/);
    assert.equal(
      await page.locator('.body-row', { hasText: '≠ differs' }).count(),
      1,
      'outputs stored as refs compare by value',
    );
  },
);
