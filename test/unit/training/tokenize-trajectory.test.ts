import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenizeHistory, tokenizeTrajectory } from '../../../src/training/tokenize-trajectory.js';
import { renderChat } from '../../../src/training/policy/chat-render.js';
import { ASSISTANT, BOS, END_OF_TURN, TOOLS, USER, encodeText } from '../../../src/training/policy/tokenizer.js';
import { TrainingContentError } from '../../../src/training/trainer-port.js';

const opts = { allowTrainingWithoutLogprobs: false, maxTokens: 512 };

/** A Choice as the built-in sampler returns it: one `token_id:<n>` entry per sampled token. */
function choice(text: string, logprob = -0.5, endOfTurn = true) {
  const ids = [...encodeText(text), ...(endOfTurn ? [END_OF_TURN] : [])];
  return {
    index: 0,
    finish_reason: endOfTurn ? 'stop' : 'length',
    message: { role: 'assistant', content: text },
    logprobs: {
      content: ids.map((id) => ({ token: `token_id:${id}`, logprob, bytes: id < 256 ? [id] : [], top_logprobs: [] })),
    },
  };
}

const trainable = (h: { mask: number[] }) => h.mask.reduce((a, b) => a + b, 0);

test('a Choice with logprobs: mask 1 exactly on its sampled tokens, old logprobs from the Choice', () => {
  const h = tokenizeHistory([{ role: 'user', content: 'hi' }, choice('yo', -0.25)], null, opts, 't')!;
  // BOS <user> h i <end> <assistant> y o <end>: the sample's end of turn replaces the template's (§9 step 4).
  assert.deepEqual(h.ids, [BOS, USER, ...encodeText('hi'), END_OF_TURN, ASSISTANT, ...encodeText('yo'), END_OF_TURN]);
  assert.deepEqual(h.mask, [0, 0, 0, 0, 0, 0, 1, 1, 1]);
  assert.deepEqual(h.oldLogprobs.slice(6), [-0.25, -0.25, -0.25]);
  assert.ok(h.oldLogprobs.slice(0, 6).every(Number.isNaN), 'context tokens have no old logprob');
  // The context is exactly what the sampler saw as its prompt.
  assert.deepEqual(h.ids.slice(0, 6), renderChat([{ role: 'user', content: 'hi' }], null, true));
});

test('a sample cut by max_tokens keeps the template end of turn as context', () => {
  const h = tokenizeHistory([{ role: 'user', content: 'q' }, choice('ab', -1, false)], null, opts, 't')!;
  assert.deepEqual(h.ids.slice(-3), [...encodeText('ab'), END_OF_TURN]);
  assert.deepEqual(h.mask.slice(-3), [1, 1, 0]);
});

test('plain assistant messages are context (mask 0) unless allow_training_without_logprobs', () => {
  const items = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'plain' },
    { role: 'user', content: 'again' },
    choice('ok'),
  ];
  const h = tokenizeHistory(items, null, opts, 't')!;
  assert.equal(trainable(h), 3); // "ok" + end of turn only
  assert.equal(tokenizeHistory(items.slice(0, 2), null, opts, 't'), null);
  const allowed = tokenizeHistory(items, null, { ...opts, allowTrainingWithoutLogprobs: true }, 't')!;
  // "plain" (5 bytes) is trained as well, without old logprobs.
  assert.equal(trainable(allowed), 3 + 5);
  const plainStart = allowed.ids.indexOf(encodeText('p')[0]!);
  assert.equal(allowed.mask[plainStart], 1);
  assert.ok(Number.isNaN(allowed.oldLogprobs[plainStart]), 'plain assistant text has no old logprob');
});

test('everything after the last trainable item is cut (§5.6)', () => {
  const items = [{ role: 'user', content: 'q' }, choice('a'), { role: 'user', content: 'tail that is not trained' }];
  const h = tokenizeHistory(items, null, opts, 't')!;
  assert.equal(h.ids[h.ids.length - 1], END_OF_TURN);
  assert.equal(h.ids.length, 1 + 3 + 1 + 2);
});

test('tools are rendered as JSON in a tools block; Choices without logprobs are not trainable', () => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: {} } }];
  const h = tokenizeHistory([{ role: 'user', content: 'q' }, choice('x')], tools, opts, 't')!;
  assert.deepEqual(h.ids.slice(0, 2), [BOS, TOOLS]);
  assert.match(Buffer.from(h.ids.filter((i) => i < 256)).toString(), /"name":"f"/);
  const noLogprobs = { ...choice('x'), logprobs: null };
  assert.equal(tokenizeHistory([{ role: 'user', content: 'q' }, noLogprobs], null, opts, 't'), null);
});

test('foreign tokens fall back to their bytes; multi-byte tokens get no old logprob', () => {
  const c = {
    index: 0,
    finish_reason: 'stop',
    message: { role: 'assistant', content: 'hé' },
    logprobs: {
      content: [
        { token: 'h', logprob: -0.1, bytes: [104], top_logprobs: [] },
        { token: 'é', logprob: -0.2, bytes: [195, 169], top_logprobs: [] },
      ],
    },
  };
  const h = tokenizeHistory([c], null, opts, 't')!;
  const at = h.ids.indexOf(104);
  assert.deepEqual(h.ids.slice(at, at + 3), [104, 195, 169]);
  assert.equal(h.oldLogprobs[at], -0.1);
  assert.ok(Number.isNaN(h.oldLogprobs[at + 1]), 'multi-byte token bytes have no old logprob');
  assert.deepEqual(h.mask.slice(at, at + 3), [1, 1, 1]);
});

test('additional_histories each contribute tokens; N_i counts all histories', () => {
  const t = {
    reward: 1,
    messages_and_choices: [{ role: 'user', content: 'a' }, choice('xy')],
    additional_histories: [
      { messages_and_choices: [{ role: 'user', content: 'b' }, choice('z')] },
      { messages_and_choices: [{ role: 'user', content: 'c' }] },
    ],
  };
  const tok = tokenizeTrajectory(t, opts, 't');
  assert.equal(tok.histories.length, 2);
  assert.equal(tok.numTrainable, 3 + 2);
});

test('a history over the context window is a TrainingContentError naming the trajectory', () => {
  const long = [{ role: 'user', content: 'x'.repeat(600) }, choice('a')];
  assert.throws(
    () => tokenizeTrajectory({ messages_and_choices: long }, opts, 'trajectory_groups[0].trajectories[2]'),
    (err: Error) =>
      err instanceof TrainingContentError &&
      /trajectory_groups\[0\]\.trajectories\[2\] has 6\d\d tokens.*512/.test(err.message),
  );
});

test('a trajectory sent as recorded chat-completion exchanges: each exchange is a history (request messages + first choice)', () => {
  const exchange = (q: string, a: string) => ({
    request: { messages: [{ role: 'user', content: q }], logprobs: true },
    response: { choices: [choice(a)] },
  });
  const tok = tokenizeTrajectory(
    { reward: 1, exchanges: { chat_completions: [exchange('q1', 'ab'), exchange('q2', 'c')] } },
    opts,
    't',
  );
  assert.equal(tok.histories.length, 2);
  assert.equal(tok.numTrainable, 3 + 2);
  assert.deepEqual(tok.histories[1]!.ids.slice(0, 5), [BOS, USER, ...encodeText('q2'), END_OF_TURN]);
});
