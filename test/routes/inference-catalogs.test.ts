import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** Inference catalogues (docs/spec/otel-service-queues.md §C; checklist items 26–27). */

const LLAMA = {
  id: 'meta-llama/Llama-3.1-8B-Instruct',
  name: 'Llama 3.1 8B Instruct',
  created: 1721692800,
  input_modalities: ['text'],
  output_modalities: ['text'],
  quantization: 'bf16',
  context_length: 131072,
  max_output_length: 8192,
  pricing: { prompt: '0.00000022', completion: '0.00000022' },
  supported_sampling_parameters: ['temperature', 'top_p'],
  supported_features: ['tools'],
  datacenters: [{ country_code: 'US' }],
  vendor_extra: { kept: true },
};
const SERVERLESS = {
  id: 'serverless-h100',
  name: 'Serverless',
  type: 'serverless',
  pricing: { cents_per_million_input_tokens: 22, cents_per_million_output_tokens: 22 },
  specs: {},
};
const DEDICATED = { ...SERVERLESS, id: 'dedicated-h100', name: 'Dedicated', type: 'dedicated' };
const CATALOG = {
  router_models: [LLAMA],
  analysis_models: [{ id: 'openai/gpt-oss-20b', name: 'gpt-oss 20B' }],
  hardware: {
    'meta-llama/Llama-3.1-8B-Instruct': [SERVERLESS, DEDICATED],
    'other/Llama-3.1-8B-Instruct': [{ ...SERVERLESS, id: 'serverless-a100' }],
  },
};

function catalogFile(t: TestContext, content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-catalog-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'catalog.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

async function catalogApp(t: TestContext): Promise<TestApp> {
  return buildTestApp(t, { HEDDLE_INFERENCE_CATALOG: catalogFile(t, CATALOG) });
}

test('item 26: the model catalogues answer {"data": [...]} from the configured file, under the real and the placeholder partner word', async (t) => {
  const h = await catalogApp(t);
  for (const url of ['/inference/router/openrouter/models', '/inference/router/partner/models']) {
    const res = await h.get(url);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: [LLAMA] }, 'every field kept, the unknown one too');
  }
  for (const url of ['/inference/analysis/artificialanalysis/models', '/inference/analysis/partner/models']) {
    const res = await h.get(url);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: CATALOG.analysis_models });
  }
});

test('item 26: another partner word is 404 with a reason; no credentials is 401', async (t) => {
  const h = await catalogApp(t);
  for (const url of [
    '/inference/router/artificialanalysis/models',
    '/inference/analysis/acme/models',
    '/inference/openrouter/v2/hardware?model=x',
  ]) {
    const res = await h.get(url);
    assert.equal(res.statusCode, 404, url);
    assert.match(res.json().reason, /Unknown inference partner/);
  }
  for (const url of ['/inference/router/openrouter/models', '/inference/nvidia/v2/hardware?model=x'])
    assert.equal((await h.get(url, null)).statusCode, 401, url);
});

test('item 27: hardware needs `model` (422); it matches the name after the last "/" in any case and returns serverless options only', async (t) => {
  const h = await catalogApp(t);
  const missing = await h.get('/inference/nvidia/v2/hardware');
  assert.equal(missing.statusCode, 422, missing.body);
  assert.ok(Array.isArray(missing.json().detail));
  const res = await h.get('/inference/nvidia/v2/hardware?model=llama-3.1-8b-instruct');
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { hardware: [SERVERLESS, { ...SERVERLESS, id: 'serverless-a100' }] });
  assert.deepEqual((await h.get('/inference/partner/v2/hardware?model=unknown')).json(), { hardware: [] });
  assert.deepEqual(
    (await h.get('/inference/nvidia/v2/hardware?model=meta-llama%2FLlama-3.1-8B-Instruct')).json(),
    { hardware: [] },
    'the publisher prefix is not part of the name',
  );
});

test('without a catalogue file every list is empty', async (t) => {
  const h = await buildTestApp(t);
  assert.deepEqual((await h.get('/inference/router/openrouter/models')).json(), { data: [] });
  assert.deepEqual((await h.get('/inference/analysis/artificialanalysis/models')).json(), { data: [] });
  assert.deepEqual((await h.get('/inference/nvidia/v2/hardware?model=x')).json(), { hardware: [] });
});

test('a catalogue file that cannot be read or breaks the format is a configuration error naming the variable', (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['{not json', /HEDDLE_INFERENCE_CATALOG: cannot read .*catalog\.json/],
    [{ router_models: [{ name: 'no id' }] }, /HEDDLE_INFERENCE_CATALOG: .*\/router_models\/0/],
    [{ hardware: { m: [{ id: 'x' }] } }, /HEDDLE_INFERENCE_CATALOG: .*\/hardware\/m\/0/],
    [{ models: [] }, /HEDDLE_INFERENCE_CATALOG: .*models/],
  ];
  for (const [content, message] of cases) {
    assert.throws(
      () => loadConfig({ HEDDLE_INFERENCE_CATALOG: catalogFile(t, content) }),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
      JSON.stringify(content),
    );
  }
  assert.throws(
    () => loadConfig({ HEDDLE_INFERENCE_CATALOG: '/nonexistent/catalog.json' }),
    /HEDDLE_INFERENCE_CATALOG: cannot read \/nonexistent\/catalog\.json/,
  );
});
