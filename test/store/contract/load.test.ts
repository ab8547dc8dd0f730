import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverloadedError } from '../../../src/errors/app-error.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { feedback, start } from './parts.js';

/** `TraceStore.load()` and the bound on queued writes (docs/reliability-backpressure.md), on every adapter. */
forEachAdapter('store load', (store) => {
  test(
    'an idle store reports empty queues and no full disk',
    guard(async () => {
      assert.deepEqual(store().load(), {
        pendingWrites: 0,
        pendingCallWrites: 0,
        waitingForConnection: 0,
        diskFull: null,
      });
    }),
  );

  test(
    'writes count as pending from submission until they commit',
    guard(async () => {
      const project = freshProject();
      const writes = [0, 1, 2].map((i) => store().calls.write([start(project, `p${i}`)]));
      assert.ok(store().load().pendingWrites >= 1, JSON.stringify(store().load()));
      assert.ok(store().load().pendingCallWrites >= 1, JSON.stringify(store().load()));
      await Promise.all(writes);
      assert.equal(store().load().pendingWrites, 0);
      assert.equal(store().load().pendingCallWrites, 0);
    }),
  );

  test(
    'only call writes count as pending call writes: the call indexer does not yield to other writes',
    guard(async () => {
      const project = freshProject();
      const others = [0, 1, 2].map((i) => store().feedback.insert([feedback(project, `f${i}`)]));
      assert.equal(store().load().pendingCallWrites, 0, JSON.stringify(store().load()));
      await Promise.all(others);
      const call = store().calls.write([start(project, 'p')]);
      assert.equal(store().load().pendingCallWrites, 1, JSON.stringify(store().load()));
      await call;
    }),
  );
});

forEachAdapter(
  'store write bound',
  (store) => {
    test(
      'past maxPendingWrites a write fails at once with 503 and is not stored; the queued ones commit',
      guard(async () => {
        const project = freshProject();
        const ids = Array.from({ length: 20 }, (_, i) => `w${i}`);
        let peak = 0;
        const outcomes = ids.map((id) => {
          const write = store().calls.write([start(project, id)]);
          peak = Math.max(peak, store().load().pendingWrites);
          return write.then(
            () => 'ok' as const,
            (error: unknown) => error,
          );
        });
        const settled = await Promise.all(outcomes);
        assert.ok(peak <= 3, `peak ${peak}`);
        const accepted = ids.filter((_, i) => settled[i] === 'ok');
        assert.equal(accepted.length, 3);
        for (const outcome of settled.filter((o) => o !== 'ok')) {
          assert.ok(outcome instanceof OverloadedError, String(outcome));
          assert.equal(outcome.status, 503);
          assert.match(outcome.message, /limit 3/);
        }
        for (const id of ids) assert.equal((await store().calls.read(project, id)) !== null, accepted.includes(id), id);
        assert.equal(store().load().pendingWrites, 0);
      }),
    );
  },
  { maxPendingWrites: 3 },
);
