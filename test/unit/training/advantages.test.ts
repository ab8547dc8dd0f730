import { test } from 'node:test';
import assert from 'node:assert/strict';
import { balanceAdvantage, groupAdvantages, scaleTokens } from '../../../src/training/objective/advantages.js';

const close = (actual: number, expected: number, tol = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${actual} ≉ ${expected}`);

test('§10.7 worked example: rewards [1,0,0,1] with scale_rewards → ±0.999998', () => {
  const a = groupAdvantages([1, 0, 0, 1], true);
  [1, -1, -1, 1].forEach((sign, i) => close(a[i]!, (sign * 0.5) / 0.500001));
  close(a[0]!, 0.999998, 1e-6);
  // advantage_balance 0.5 halves the negatives only.
  close(balanceAdvantage(a[1]!, 0.5), -0.499999, 1e-6);
  close(balanceAdvantage(a[0]!, 0.5), a[0]!);
});

test('scale_rewards false: advantages are centred rewards; equal rewards give all zeros', () => {
  assert.deepEqual(groupAdvantages([3, 1, 2], false), [1, -1, 0]);
  assert.deepEqual(groupAdvantages([0.7, 0.7, 0.7], true), [0, 0, 0]);
  assert.deepEqual(groupAdvantages([], true), []);
});

test('advantage_balance: +1 zeroes negatives, −1 zeroes positives, −0.5 halves positives', () => {
  assert.equal(balanceAdvantage(-2, 1), -0);
  assert.equal(balanceAdvantage(2, 1), 2);
  assert.equal(balanceAdvantage(2, -1), 0);
  assert.equal(balanceAdvantage(-2, -1), -2);
  assert.equal(balanceAdvantage(2, -0.5), 1);
  assert.equal(balanceAdvantage(-2, 0), -2);
});

test('token weights have mean 1 over trainable tokens; advantages normalised by mean |A|·w', () => {
  // Trajectory 0: 1 token, A = 1; trajectory 1: 3 tokens, A = −1.
  const { weights, advantages } = scaleTokens(
    [
      { advantage: 1, numTrainable: 1 },
      { advantage: -1, numTrainable: 3 },
    ],
    0,
  );
  // raw w = [1, 1/3] (up to 1e-6); token mean = (1·1 + 3·1/3)/4 = 0.5 → w = [2, 2/3].
  close(weights[0]!, 2, 1e-5);
  close(weights[1]!, 2 / 3, 1e-5);
  close((weights[0]! * 1 + weights[1]! * 3) / 4, 1, 1e-9);
  // mean |A|·w over tokens = (1·2 + 3·1·2/3)/4 = 1 → unchanged.
  close(advantages[0]!, 1, 1e-5);
  close(advantages[1]!, -1, 1e-5);
  // With balance 0.5 the negative halves, and mean |A|w = (2 + 3·0.5·2/3)/4 = 0.75.
  const b = scaleTokens(
    [
      { advantage: 1, numTrainable: 1 },
      { advantage: -1, numTrainable: 3 },
    ],
    0.5,
  );
  close(b.advantages[0]!, 1 / 0.75, 1e-5);
  close(b.advantages[1]!, -0.5 / 0.75, 1e-5);
});

test('advantage_balance 1 with only negative advantages leaves every advantage 0 (no division by 0)', () => {
  const { advantages } = scaleTokens(
    [
      { advantage: -1, numTrainable: 2 },
      { advantage: -0.5, numTrainable: 2 },
    ],
    1,
  );
  assert.deepEqual(
    advantages.map((a) => Math.abs(a)),
    [0, 0],
  );
});
