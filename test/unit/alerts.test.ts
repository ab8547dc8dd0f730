import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertMetric, breaches, parseAlertSpec, webhookBody, type AlertSpecValue } from '../../src/domain/alerts.js';

/** The AlertSpec `spec` fields and each metric (docs/alerts.md), table-driven. */

function spec(fields: Record<string, unknown>): AlertSpecValue {
  const parsed = parseAlertSpec({ spec: { threshold: 1, window: { calls: 10 }, ...fields } });
  assert.equal(typeof parsed, 'object', String(parsed));
  return parsed as AlertSpecValue;
}

const call = (summary: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  started_at: '2025-01-01T00:00:00Z',
  ended_at: '2025-01-01T00:00:01Z',
  exception: null,
  summary,
  ...extra,
});

test('each metric over a window', () => {
  const latencies = [100, 200, 300, 400].map((ms) => call({ weave: { latency_ms: ms } }));
  const usage = (t: number) => ({ usage: { m: { prompt_tokens: t, completion_tokens: 1 } } });
  const costs = (c: number) => ({
    weave: { costs: { m: { prompt_tokens_total_cost: c, completion_tokens_total_cost: 0 } } },
  });
  const fb = (score: unknown) => ({
    weave: { feedback: [{ feedback_type: 'judge', payload: { output: { score } } }] },
  });
  const cases: Array<[string, Record<string, unknown>, Array<ReturnType<typeof call>>, number | null]> = [
    ['error rate', { metric: 'error_rate' }, [call({}, { exception: 'E' }), call({}), call({}), call({})], 0.25],
    ['p50 latency', { metric: 'latency_ms', percentile: 50 }, latencies, 200],
    ['p95 latency', { metric: 'latency_ms' }, latencies, 400],
    ['latency from times', { metric: 'latency_ms' }, [call({})], 1000],
    ['tokens summed', { metric: 'tokens' }, [call(usage(9)), call(usage(19))], 30],
    ['tokens per call', { metric: 'tokens', aggregate: 'mean' }, [call(usage(9)), call(usage(19))], 15],
    ['cost', { metric: 'cost' }, [call(costs(0.5)), call(costs(0.25))], 0.75],
    [
      'feedback mean',
      { metric: 'feedback', feedback_type: 'judge', feedback_path: 'output.score' },
      [call(fb(1)), call(fb(0)), call(fb(true)), call({})],
      2 / 3,
    ],
    ['too few calls', { metric: 'error_rate', min_calls: 5 }, [call({})], null],
  ];
  for (const [name, fields, calls, want] of cases) assert.equal(alertMetric(spec(fields), calls), want, name);
});

test('comparisons, refusals, and the Slack body', () => {
  assert.equal(breaches(spec({ metric: 'cost', comparison: 'gte' }), 1), true);
  assert.equal(breaches(spec({ metric: 'cost', comparison: 'gt' }), 1), false);
  assert.equal(breaches(spec({ metric: 'cost', comparison: 'lt' }), 0.5), true);
  for (const [fields, reason] of [
    [{ metric: 'nope' }, /spec.metric/],
    [{ metric: 'cost', window: {} }, /exactly one of calls/],
    [{ metric: 'cost', window: { calls: 1, seconds: 1 } }, /exactly one of calls/],
    [{ metric: 'feedback' }, /feedback_type/],
    [{ metric: 'cost', webhooks: [{ url: 'ftp://x' }] }, /http\(s\) URL/],
  ] as const)
    assert.match(String(parseAlertSpec({ spec: { threshold: 1, window: { calls: 1 }, ...fields } })), reason);
  const body = webhookBody(
    {
      event_id: 'e1',
      project_id: 'a/b',
      alert_id: 'x',
      state: 'firing',
      metric: 'cost',
      value: 2,
      comparison: 'gt',
      threshold: 1,
      at: '2025-01-01T00:00:00Z',
    },
    'slack',
  ) as { text: string };
  assert.match(body.text, /\*x\* in a\/b is firing: cost = 2 \(threshold > 1\)/);
});
