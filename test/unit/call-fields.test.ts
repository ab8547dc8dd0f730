import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveCallField, type CallField } from '../../src/domain/call-fields.js';
import { InvalidFieldError } from '../../src/errors/app-error.js';

/** src/domain/call-fields.ts: what each calls query path refers to (docs/spec/calls.md §5.2). */

test('resolveCallField maps columns, JSON paths, derived and feedback fields', () => {
  const cases: Array<[string, CallField]> = [
    ['id', { kind: 'column', name: 'id', type: 'string' }],
    ['op_name', { kind: 'column', name: 'op_name', type: 'string' }],
    ['display_name', { kind: 'column', name: 'display_name', type: 'string' }],
    ['wb_run_id', { kind: 'column', name: 'wb_run_id', type: 'string' }],
    ['wb_run_step', { kind: 'column', name: 'wb_run_step', type: 'int' }],
    ['wb_run_step_end', { kind: 'column', name: 'wb_run_step_end', type: 'int' }],
    ['started_at', { kind: 'column', name: 'started_at', type: 'datetime' }],
    ['deleted_at', { kind: 'column', name: 'deleted_at', type: 'datetime' }],
    ['inputs', { kind: 'json', column: 'inputs', path: [] }],
    ['inputs.messages.0.content', { kind: 'json', column: 'inputs', path: ['messages', '0', 'content'] }],
    ['output.text', { kind: 'json', column: 'output', path: ['text'] }],
    ['attributes.env', { kind: 'json', column: 'attributes', path: ['env'] }],
    [
      'summary.usage.gpt-3\\.5-turbo.total_tokens',
      { kind: 'json', column: 'summary', path: ['usage', 'gpt-3.5-turbo', 'total_tokens'] },
    ],
    ['summary.weave.status', { kind: 'derived', name: 'status' }],
    ['summary.weave.latency_ms', { kind: 'derived', name: 'latency_ms' }],
    ['summary.weave.trace_name', { kind: 'derived', name: 'trace_name' }],
    ['summary.weave.total_tokens', { kind: 'derived', name: 'total_tokens' }],
    ['summary.weave.total_cost', { kind: 'derived', name: 'total_cost' }],
    [
      'feedback.[wandb.reaction.1].payload.emoji',
      { kind: 'feedback', feedbackType: 'wandb.reaction.1', target: { payload: ['emoji'] } },
    ],
    ['feedback.[*].payload.a.b', { kind: 'feedback', feedbackType: '*', target: { payload: ['a', 'b'] } }],
    ['feedback.[*].runnable_ref', { kind: 'feedback', feedbackType: '*', target: 'runnable_ref' }],
    ['feedback.[score].trigger_ref', { kind: 'feedback', feedbackType: 'score', target: 'trigger_ref' }],
  ];
  for (const [path, expected] of cases) assert.deepEqual(resolveCallField(path), expected, path);
});

test('resolveCallField refuses unknown, derived-unsupported, storage and malformed feedback paths with 422', () => {
  const bad = [
    'bogus_field',
    'storage_size_bytes',
    'total_storage_size_bytes',
    'summary.weave',
    'summary.weave.costs',
    'summary.weave.status.x',
    'id.x',
    'started_at.x',
    'feedback',
    'feedback.',
    'feedback.[]',
    'feedback.[x]',
    'feedback.[x].other',
    'feedback.[x].runnable_ref.y',
    'wb_username',
    'expire_at',
    '',
  ];
  for (const path of bad) {
    assert.throws(
      () => resolveCallField(path),
      (e) => e instanceof InvalidFieldError && e.status === 422,
      path,
    );
  }
  assert.throws(() => resolveCallField('bogus_field'), { message: 'Field bogus_field is not allowed' });
});
