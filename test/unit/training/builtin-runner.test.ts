import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { BuiltinRunner } from '../../../src/services/training/builtin-runner.js';
import { trainingSettings } from '../../../src/services/training/settings.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TrainingStore } from '../../../src/store/training-types.js';
import { ScriptedTrainer } from '../../training-worker/scripted-trainer.js';

const silent = { info() {}, warn() {}, error() {} };

/**
 * Shutdown while the runner is asking the queue for a job: its idle wait (an unref'd timer, so an
 * idle runner does not keep the process alive) must not begin, or stop() would hang until that
 * timer fired, and with nothing else alive the process would end with stop() never settled.
 */
test('stop() during a lease ends the loop at once instead of entering the idle wait', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-runner-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let leaseStarted!: () => void;
  const leasing = new Promise<void>((resolve) => (leaseStarted = resolve));
  let finishLease!: () => void;
  const leaseGate = new Promise<void>((resolve) => (finishLease = resolve));
  // the real store, with its leases held open until the test has called stop()
  const real = store.training;
  const training = new Proxy(real, {
    get(target, key) {
      if (key === 'leaseJob') {
        return async (...args: Parameters<TrainingStore['leaseJob']>) => {
          leaseStarted();
          await leaseGate;
          return real.leaseJob(...args);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const settings = trainingSettings(loadConfig({ HEDDLE_DATA_DIR: dir }));
  const runner = new BuiltinRunner(training, new ScriptedTrainer({}), settings, silent);
  runner.start();
  await leasing;
  const stopped = runner.stop().then(() => 'stopped' as const);
  finishLease();
  // the idle wait is 1 s: well before that, stop() has settled
  const first = await Promise.race([stopped, sleep(500, 'still waiting' as const)]);
  assert.equal(first, 'stopped');
});
