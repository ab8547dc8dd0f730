import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidRequestError } from '../../../src/errors/app-error.js';
import type { CostRow } from '../../../src/store/feedback-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/** A project price row; `over` replaces any column. */
function price(project: string, id: string, over: Partial<CostRow> = {}): CostRow {
  return {
    id,
    pricing_level: 'project',
    pricing_level_id: project,
    provider_id: 'openai',
    llm_id: 'gpt-x',
    effective_date: 1_700_000_000_000_000,
    prompt_token_cost: 0.000_002_5,
    completion_token_cost: 1e-5,
    cache_read_input_token_cost: 0,
    cache_creation_input_token_cost: 1.25e-6,
    prompt_token_cost_unit: 'USD',
    completion_token_cost_unit: 'USD',
    created_by: 'u1',
    created_at: 10,
    ...over,
  };
}

const ids = (rows: { id: string }[]): string[] => rows.map((r) => r.id);

forEachAdapter('cost store', (store) => {
  test(
    'prices come back exactly (doubles included), in created_at then id order, per project',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      const exact = price(project, 'b', { created_at: 5, prompt_token_cost: 0.1 + 0.2, llm_id: 'm2' });
      await store().costs.insert(project, [price(project, 'c'), exact, price(project, 'a', { created_at: 10 })]);
      await store().costs.insert(other, [price(other, 'z', { created_at: 1 })]);
      const rows = await store().costs.query({ project_id: project });
      assert.deepEqual(ids(rows), ['b', 'a', 'c']);
      assert.deepEqual(rows[0], exact);
      assert.equal(rows[0].pricing_level_id, project);
    }),
  );

  test(
    'an id already in the project fails the whole insert and overwrites nothing',
    guard(async () => {
      const project = freshProject();
      await store().costs.insert(project, [price(project, 'p1', { prompt_token_cost: 1 })]);
      await assert.rejects(
        store().costs.insert(project, [price(project, 'p2'), price(project, 'p1', { prompt_token_cost: 2 })]),
        InvalidRequestError,
      );
      const rows = await store().costs.query({ project_id: project });
      assert.deepEqual(ids(rows), ['p1']);
      assert.equal(rows[0]!.prompt_token_cost, 1);
      const other = freshProject();
      await store().costs.insert(other, [price(other, 'p1')]);
    }),
  );

  test(
    'purge deletes only the listed ids of the project',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await store().costs.insert(project, [price(project, 'a'), price(project, 'b')]);
      await store().costs.insert(other, [price(other, 'a')]);
      assert.equal(await store().costs.purge(project, []), 0);
      assert.equal(await store().costs.purge(project, ['a', 'nope']), 1);
      assert.deepEqual(ids(await store().costs.query({ project_id: project })), ['b']);
      assert.deepEqual(ids(await store().costs.query({ project_id: other })), ['a']);
    }),
  );

  test(
    'forModels: the rows of those models (all when null, none for []), oldest first, this project only',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await store().costs.insert(project, [
        price(project, 'm1-new', { llm_id: 'm1', created_at: 30 }),
        price(project, 'm1-old', { llm_id: 'm1', created_at: 20 }),
        price(project, 'm2', { llm_id: 'm2', created_at: 25 }),
        price(project, 'm3', { llm_id: 'm3', created_at: 1 }),
      ]);
      await store().costs.insert(other, [price(other, 'foreign', { llm_id: 'm1' })]);
      assert.deepEqual(ids(await store().costs.forModels(project, ['m1', 'm2'])), ['m1-old', 'm2', 'm1-new']);
      assert.deepEqual(ids(await store().costs.forModels(project, null)), ['m3', 'm1-old', 'm2', 'm1-new']);
      assert.deepEqual(await store().costs.forModels(project, []), []);
    }),
  );

  test(
    'query filters and sorts on price columns',
    guard(async () => {
      const project = freshProject();
      await store().costs.insert(project, [
        price(project, 'cheap', { prompt_token_cost: 1e-7, effective_date: 3 }),
        price(project, 'dear', { prompt_token_cost: 3e-5, effective_date: 1 }),
        price(project, 'mid', { prompt_token_cost: 2e-6, effective_date: 2 }),
      ]);
      const rows = await store().costs.query({
        project_id: project,
        where: {
          kind: 'compare',
          op: 'gt',
          left: { kind: 'field', field: { kind: 'column', name: 'prompt_token_cost', type: 'number' } },
          right: { kind: 'literal', value: 1e-6 },
        },
        sort_by: [{ field: { kind: 'column', name: 'effective_date', type: 'datetime' }, direction: 'desc' }],
      });
      assert.deepEqual(ids(rows), ['mid', 'dear']);
    }),
  );
});
