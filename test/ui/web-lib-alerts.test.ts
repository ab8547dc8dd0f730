/** Unit tests for the alert form's spec building and the alerts page's words (web/src/lib/alerts.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAlertSpec } from '../../src/domain/alerts.js';
import {
  alertSpecOfFields,
  describeCondition,
  describeWindow,
  emptyAlertFields,
  fieldsOfAlert,
  type AlertFields,
} from '../../web/src/lib/alerts.js';

const P = 'acme/demo';
const fields = (patch: Partial<AlertFields>): AlertFields => ({
  ...emptyAlertFields(),
  name: 'a',
  threshold: '1',
  ...patch,
});

test('every metric the form offers publishes a spec the server evaluates', () => {
  const cases: Partial<AlertFields>[] = [
    { metric: 'error_rate', threshold: '0.2', windowSize: '50' },
    { metric: 'latency_ms', percentile: '99', windowKind: 'seconds', windowSize: '300' },
    { metric: 'cost', aggregate: 'mean' },
    { metric: 'tokens' },
    { metric: 'feedback', feedbackType: 'wandb.runnable.judge', feedbackPath: 'output.score', comparison: 'lt' },
  ];
  for (const c of cases) {
    const val = alertSpecOfFields(P, fields(c));
    assert.equal(typeof val, 'object', String(val));
    assert.equal(typeof parseAlertSpec(val), 'object', `${c.metric}: ${String(parseAlertSpec(val))}`);
  }
});

test('ops become refs to every version, and a published alert reads back into the same fields', () => {
  const f = fields({
    name: 'chat-errors',
    ops: 'chat, weave:///acme/demo/op/rag:abc',
    query: '{"$expr":{"$gt":[{"$getField":"summary.weave.latency_ms"},{"$literal":100}]}}',
    webhooks: [{ url: 'https://hooks.slack.com/services/x', format: 'slack' }],
    minCalls: '20',
  });
  const val = alertSpecOfFields(P, f);
  assert.ok(typeof val === 'object');
  assert.deepEqual(val.op_scope, ['weave:///acme/demo/op/chat:*', 'weave:///acme/demo/op/rag:abc']);
  assert.deepEqual(fieldsOfAlert('chat-errors', val.op_scope, val.spec), { ...f, ops: 'chat, rag' });
});

test('bad fields are refused with the reason the form shows', () => {
  assert.equal(alertSpecOfFields(P, fields({ threshold: 'lots' })), 'Threshold must be a number');
  assert.match(String(alertSpecOfFields(P, fields({ windowSize: '0' }))), /Window must be a whole number/);
  assert.match(String(alertSpecOfFields(P, fields({ windowSize: '10001' }))), /at most 10,000 calls/);
  assert.match(String(alertSpecOfFields(P, fields({ name: 'a/b' }))), /^Name:/);
  assert.match(String(alertSpecOfFields(P, fields({ metric: 'feedback' }))), /Feedback type is required/);
  assert.match(String(alertSpecOfFields(P, fields({ query: '{"$expr":' }))), /must be JSON/);
  assert.match(String(alertSpecOfFields(P, fields({ query: '{"a":1}' }))), /"\$expr"/);
  assert.match(
    String(alertSpecOfFields(P, fields({ webhooks: [{ url: 'ftp://x', format: 'json' }] }))),
    /Webhook 1: the URL must start with http/,
  );
});

test('conditions and windows in words', () => {
  assert.equal(describeCondition({ metric: 'error_rate', comparison: 'gt', threshold: 0.2 }), 'error rate > 0.2');
  assert.equal(describeCondition({ metric: 'latency_ms', threshold: 2000 }), 'p95 latency (ms) > 2000');
  assert.equal(
    describeCondition({ metric: 'tokens', aggregate: 'mean', comparison: 'gte', threshold: 8 }),
    'mean tokens ≥ 8',
  );
  assert.equal(
    describeCondition({
      metric: 'feedback',
      feedback_type: 'm',
      feedback_path: 'output.score',
      comparison: 'lt',
      threshold: 0.5,
    }),
    'mean m output.score < 0.5',
  );
  assert.equal(describeWindow({ window: { calls: 1000 } }), 'last 1,000 calls');
  assert.equal(describeWindow({ window: { seconds: 300 } }), 'last 300 s');
});
