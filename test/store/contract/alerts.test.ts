import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AlertOutcome, AlertStore } from '../../../src/store/alert-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/**
 * Alerts' store on every adapter (docs/alerts.md "On several nodes"): an evaluation's lease is
 * exclusive and a node that lost it records nothing; a delivery's attempt count fences its outcome;
 * retries wait for their time; a republished spec keeps state and mute. Leases are taken across
 * projects, so each test runs at an earlier clock than the one before: the rows earlier tests left
 * are neither due nor free then.
 */

const firing = (projectId: string, eventId: string, at: number, targets = 1): AlertOutcome => ({
  value: 1,
  change: {
    event: { project_id: projectId, alert_id: 'a', event_id: eventId, state: 'firing', body: '{"x":1}', at },
    deliveries: Array.from({ length: targets }, (_, target) => ({
      target,
      url: `http://hook/${target}`,
      format: 'json',
    })),
  },
});

forEachAdapter('alert store', (store) => {
  const s = (): AlertStore => store().alerts;

  test(
    'an evaluation lease is exclusive until it expires; the node that lost it records nothing',
    guard(async () => {
      const p = freshProject();
      const t = 9e15;
      await s().upsert({ projectId: p, alertId: 'a', spec: '{}', caller: '{}', now: t });
      const mine = async (owner: string, now: number, dueBefore = now) => {
        const row = await s().claimEvaluation(owner, now, dueBefore, now + 10);
        return row?.project_id === p ? row : null;
      };
      assert.equal((await mine('A', t))?.alert_id, 'a');
      assert.equal(await mine('B', t + 1), null, 'leased by A');
      assert.equal((await mine('B', t + 11))?.alert_id, 'a', 'the lease expired');
      assert.equal(await s().finishEvaluation(p, 'a', 'A', t + 12, firing(p, 'e-a', t + 12)), false);
      assert.deepEqual(await s().history(p, 'a', 10), [], 'the lost lease wrote nothing');
      assert.equal(await s().finishEvaluation(p, 'a', 'B', t + 13, firing(p, 'e-b', t + 13, 2)), true);
      const row = await s().get(p, 'a');
      assert.deepEqual([row?.state, row?.value, row?.changed_at, row?.evaluated_at], ['firing', 1, t + 13, t + 13]);
      assert.deepEqual(
        (await s().history(p, 'a', 10)).map((e) => e.event_id),
        ['e-b'],
      );
      const deliveries = await s().deliveries(p, ['e-b']);
      assert.deepEqual(
        deliveries.map((d) => [d.target, d.status, d.attempts]),
        [
          [0, 'pending', 0],
          [1, 'pending', 0],
        ],
      );
      assert.equal(await mine('C', t + 14, t + 13), null, 'evaluated at t + 13: not due before it');
      assert.equal(await s().finishEvaluation(p, 'a', 'B', t + 15, { value: 0.5 }), false, 'B released it');
    }),
  );

  test(
    'deliveries: one attempt at a time, fenced by the attempt count; retries wait; failed for good',
    guard(async () => {
      const p = freshProject();
      const t = 8e15;
      await s().upsert({ projectId: p, alertId: 'a', spec: '{}', caller: '{}', now: t });
      const row = await s().claimEvaluation('E', t, t, t + 5);
      assert.equal(row?.project_id, p);
      assert.equal(await s().finishEvaluation(p, 'a', 'E', t, firing(p, 'ev', t)), true);
      const claim = async (owner: string, now: number) => {
        const d = await s().claimDelivery(owner, now, now + 10);
        return d?.project_id === p ? d : null;
      };
      const first = await claim('A', t + 1);
      assert.deepEqual([first?.event_id, first?.attempts], ['ev', 1]);
      assert.equal(await claim('B', t + 2), null, 'A holds it');
      const second = await claim('B', t + 12);
      assert.equal(second?.attempts, 2, 'A stopped: its lease expired and B takes the next attempt');
      assert.equal(await s().finishDelivery(first!, 'A', t + 13, { ok: true }), false, 'A is fenced off');
      assert.equal(
        await s().finishDelivery(second!, 'B', t + 13, { ok: false, error: 'HTTP 500', retryAt: t + 100 }),
        true,
      );
      assert.equal(await claim('C', t + 50), null, 'not before its retry time');
      const third = await claim('C', t + 100);
      assert.equal(third?.attempts, 3);
      assert.equal(await s().finishDelivery(third!, 'C', t + 101, { ok: false, error: 'gone', retryAt: null }), true);
      const [d] = await s().deliveries(p, ['ev']);
      assert.deepEqual([d?.status, d?.attempts, d?.last_error], ['failed', 3, 'gone']);
      assert.equal(await claim('D', t + 1000), null, 'a failed delivery is not sent again');
    }),
  );

  test(
    'a republished spec keeps state and mute; a timed mute keeps its end; mute of an unknown alert is false',
    guard(async () => {
      const p = freshProject();
      const t = 7e15;
      await s().upsert({ projectId: p, alertId: 'a', spec: '{"v":1}', caller: '{}', now: t });
      assert.equal(await s().setMuted(p, 'a', { muted: true, until: t + 50 }, t + 1), true);
      assert.deepEqual(
        [(await s().get(p, 'a'))?.muted, (await s().get(p, 'a'))?.muted_until],
        [true, t + 50],
        'a timed mute keeps its end',
      );
      assert.equal(await s().setMuted(p, 'a', { muted: true, until: null }, t + 1), true);
      assert.equal(await s().setMuted(p, 'nope', { muted: true, until: null }, t + 1), false);
      const row = await s().claimEvaluation('E', t + 2, t + 2, t + 5);
      assert.equal(row?.project_id, p);
      assert.equal(await s().finishEvaluation(p, 'a', 'E', t + 2, firing(p, 'ev', t + 2, 0)), true);
      await s().upsert({ projectId: p, alertId: 'a', spec: '{"v":2}', caller: '{"u":1}', now: t + 3 });
      const [listed] = await s().list(p);
      assert.deepEqual(
        [listed?.spec, listed?.caller, listed?.muted, listed?.muted_until, listed?.state, listed?.evaluated_at],
        ['{"v":2}', '{"u":1}', true, null, 'firing', null],
      );
      // due again at once (a new spec), and leased so later tests' clocks never find it free
      const again = await s().claimEvaluation('E', t + 4, t + 4, 9.9e15);
      assert.equal(again?.project_id, p);
    }),
  );

  test(
    'an alert last fired at its newest firing event, kept when it resolves; never fired is null',
    guard(async () => {
      const p = freshProject();
      const t = 6e15;
      await s().upsert({ projectId: p, alertId: 'a', spec: '{}', caller: '{}', now: t });
      await s().upsert({ projectId: p, alertId: 'b', spec: '{}', caller: '{}', now: t });
      assert.equal((await s().claimEvaluation('F', t, t, t + 5))?.alert_id, 'a');
      assert.equal(await s().finishEvaluation(p, 'a', 'F', t + 1, firing(p, 'fired', t + 1, 0)), true);
      assert.equal((await s().claimEvaluation('F', t + 2, t + 2, t + 5))?.alert_id, 'a');
      const resolved: AlertOutcome = {
        value: 0,
        change: {
          event: { project_id: p, alert_id: 'a', event_id: 'res', state: 'resolved', body: '{}', at: t + 3 },
          deliveries: [],
        },
      };
      assert.equal(await s().finishEvaluation(p, 'a', 'F', t + 3, resolved), true);
      assert.deepEqual(
        (await s().list(p)).map((r) => [r.alert_id, r.state, r.last_fired_at]),
        [
          ['a', 'ok', t + 1],
          ['b', 'ok', null],
        ],
      );
      assert.equal((await s().get(p, 'a'))?.last_fired_at, t + 1);
      // leased so later tests' clocks never find them free
      for (let i = 0; i < 2; i += 1)
        assert.equal((await s().claimEvaluation('F', t + 4, t + 4, 9.9e15))?.project_id, p);
    }),
  );
});
