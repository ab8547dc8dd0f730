import assert from 'node:assert/strict';
import { test } from 'node:test';
import { choosePrice, costEntry } from '../../src/domain/costs.js';
import { reactionNames } from '../../src/domain/emoji.js';
import { purgeIds } from '../../src/domain/record-fields.js';
import { loadDefaultPrices } from '../../src/services/price-table.js';
import type { CostRow } from '../../src/store/types.js';

/** Price choice and cost arithmetic (docs/spec/objects.md §8.5), reaction names (§7.2), purge shapes (§7.6, §8.4). */

function row(overrides: Partial<CostRow>): CostRow {
  return {
    id: 'x',
    pricing_level: 'project',
    pricing_level_id: 'acme/demo',
    provider_id: 'default',
    llm_id: 'm',
    effective_date: 0,
    prompt_token_cost: 0,
    completion_token_cost: 0,
    cache_read_input_token_cost: 0,
    cache_creation_input_token_cost: 0,
    prompt_token_cost_unit: 'USD',
    completion_token_cost_unit: 'USD',
    created_by: 'u',
    created_at: 0,
    ...overrides,
  };
}

test('costEntry: hand-computed totals with cache tokens', () => {
  const usage = {
    model: 'm',
    prompt_tokens: 1200,
    completion_tokens: 300,
    requests: 3,
    total_tokens: null,
    cache_read_input_tokens: 500,
    cache_creation_input_tokens: 200,
  };
  const price = row({
    prompt_token_cost: 3e-6,
    completion_token_cost: 1.5e-5,
    cache_read_input_token_cost: 3e-7,
    cache_creation_input_token_cost: 3.75e-6,
  });
  const entry = costEntry(usage, price);
  // uncached prompt: 1200 - 500 - 200 = 500 tokens × 3e-6 = 0.0015
  assert.ok(Math.abs((entry.prompt_tokens_total_cost as number) - 0.0015) < 1e-15);
  // 300 × 1.5e-5 = 0.0045
  assert.ok(Math.abs((entry.completion_tokens_total_cost as number) - 0.0045) < 1e-15);
  // 500 × 3e-7 = 0.00015; 200 × 3.75e-6 = 0.00075
  assert.ok(Math.abs((entry.cache_read_input_tokens_total_cost as number) - 0.00015) < 1e-15);
  assert.ok(Math.abs((entry.cache_creation_input_tokens_total_cost as number) - 0.00075) < 1e-15);
  assert.equal(entry.total_tokens, 0);
  assert.equal(entry.effective_date, '1970-01-01T00:00:00Z');
});

test('choosePrice: in force first, then project before default, then newest', () => {
  const at = 1000;
  const oldProject = row({ id: 'old-project', effective_date: 100 });
  const newDefault = row({ id: 'new-default', pricing_level: 'default', effective_date: 900 });
  const newerProject = row({ id: 'newer-project', effective_date: 500 });
  const future = row({ id: 'future', effective_date: 2000 });
  const laterFuture = row({ id: 'later-future', effective_date: 3000 });
  assert.equal(choosePrice([], at), null);
  assert.equal(choosePrice([future, oldProject, newDefault], at)?.id, 'old-project');
  assert.equal(choosePrice([oldProject, newerProject, newDefault], at)?.id, 'newer-project');
  assert.equal(choosePrice([newDefault, future], at)?.id, 'new-default');
  assert.equal(choosePrice([future, laterFuture], at)?.id, 'later-future');
  assert.equal(choosePrice([row({ id: 'exact', effective_date: at }), future], at)?.id, 'exact');
});

test('default price table: every row has a source, USD per-token prices and a valid date', () => {
  const rows = loadDefaultPrices();
  assert.ok(rows.length >= 5);
  for (const r of rows) {
    assert.equal(r.pricing_level, 'default');
    assert.ok(r.prompt_token_cost > 0 && r.prompt_token_cost < 1e-3, r.llm_id);
    assert.ok(r.completion_token_cost > 0 && r.completion_token_cost < 1e-3, r.llm_id);
    assert.ok(r.effective_date > 0);
  }
});

test('reaction names: aliases, skin tones, one emoji only', () => {
  assert.deepEqual(reactionNames('👍'), { alias: ':thumbs_up:', detoned: '👍', detoned_alias: ':thumbs_up:' });
  assert.deepEqual(reactionNames('👍🏿'), {
    alias: ':thumbs_up_dark_skin_tone:',
    detoned: '👍',
    detoned_alias: ':thumbs_up:',
  });
  assert.equal(reactionNames('❤️')?.alias, ':red_heart:');
  assert.equal(reactionNames('👨‍👩‍👦')?.alias, ':family_man_woman_boy:');
  assert.equal(reactionNames('👍👍'), null);
  assert.equal(reactionNames('a'), null);
  assert.equal(reactionNames(''), null);
});

test('purge query shapes', () => {
  const eq = (field: string, value: unknown) => ({ $eq: [{ $getField: field }, { $literal: value }] });
  assert.deepEqual(purgeIds({ $expr: eq('id', 'a') }, false), ['a']);
  assert.deepEqual(purgeIds({ $expr: { $or: [eq('id', 'a'), eq('id', 'b')] } }, false), ['a', 'b']);
  assert.equal(purgeIds({ $expr: { $or: [eq('id', 'a'), eq('x', 'b')] } }, false), null);
  assert.equal(purgeIds({ $expr: eq('id', 1) }, false), null);
  assert.equal(purgeIds({ $expr: { $and: [eq('id', 'a')] } }, false), null);
  assert.equal(purgeIds({ $expr: { $or: [] } }, false), null);
  assert.equal(purgeIds({ $expr: { $or: [] } }, true), null);
  const inIds = { $expr: { $in: [{ $getField: 'id' }, [{ $literal: 'a' }, { $literal: 'b' }]] } };
  assert.equal(purgeIds(inIds, false), null);
  assert.deepEqual(purgeIds(inIds, true), ['a', 'b']);
});
