import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_CURSOR_BATCH, nextCursorBatch, nextCursorBatchAfter } from '../../src/store/postgres/cursor-batch.js';

/** The PostgreSQL streams' read sizes: more rows a round trip when they are light, few when heavy. */

test('light rows are read 4,096 at a time, heavy ones a few at a time, never fewer than 16', () => {
  assert.equal(nextCursorBatch(0), FIRST_CURSOR_BATCH);
  assert.equal(nextCursorBatch(Number.NaN), FIRST_CURSOR_BATCH);
  assert.equal(nextCursorBatch(300), 4_096);
  assert.equal(nextCursorBatch(4_096), 1_024);
  assert.equal(nextCursorBatch(1_000_000), 16);
});

test('a batch is judged by its rows string fields (JSON columns arrive as text)', () => {
  assert.equal(nextCursorBatchAfter([]), FIRST_CURSOR_BATCH);
  const light = Array.from({ length: 10 }, () => ({ id: 'x'.repeat(36), started_at: 1, summary: '{}' }));
  assert.equal(nextCursorBatchAfter(light), 4_096);
  const heavy = [{ id: 'a', inputs: 'x'.repeat(2 * 2 ** 20) }];
  assert.equal(nextCursorBatchAfter(heavy), 16);
  // 64 bytes a row are counted for what is not a string, so numbers alone never ask for more than the cap
  assert.equal(nextCursorBatchAfter([{ a: 1, b: null }]), 4_096);
});
