import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { toJsonSchema2020 } from '../../src/plugins/openapi.js';
import { buildTestApp } from '../helpers/app.js';

/**
 * GET /openapi.json: a valid OpenAPI 3.1 document listing every documented route. Validity is
 * checked by `openapi-spec-validator` (Python; on the machine image, else installed into a
 * virtualenv under .cache/), which validates OpenAPI 3.1 against its JSON Schema 2020-12 meta-schema.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const VALIDATOR_VERSION = '0.9.0';

function pythonWithValidator(): string {
  const probe = (python: string): boolean =>
    spawnSync(python, ['-c', 'import openapi_spec_validator'], { stdio: 'ignore' }).status === 0;
  if (probe('python3')) return 'python3';
  const venv = path.join(REPO, '.cache', 'venv-openapi');
  const python = path.join(venv, 'bin', 'python');
  if (!fs.existsSync(python)) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  if (!probe(python)) {
    execFileSync(python, ['-m', 'pip', 'install', '--quiet', `openapi-spec-validator==${VALIDATOR_VERSION}`], {
      stdio: 'inherit',
      timeout: 300_000,
    });
  }
  return python;
}

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content?: Record<string, { schema?: unknown }> };
        responses?: Record<string, unknown>;
        security?: unknown[];
      }
    >
  >;
  components?: { schemas?: Record<string, unknown> };
};

const toOpenApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

test('GET /openapi.json is a valid OpenAPI 3.1 document', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.get('/openapi.json', null);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /application\/json/);
  const doc = res.json() as Doc;
  assert.equal(doc.openapi, '3.1.0');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-openapi-')), 'openapi.json');
  fs.writeFileSync(file, res.body);
  t.after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
  const script =
    'import json,sys\nfrom openapi_spec_validator import validate\nfrom openapi_spec_validator.validation import OpenAPIV31SpecValidator\nvalidate(json.load(open(sys.argv[1])), cls=OpenAPIV31SpecValidator)\nprint("valid")';
  const run = spawnSync(pythonWithValidator(), ['-c', script, file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `openapi-spec-validator rejected the document:\n${run.stderr.slice(-3000)}`);
  assert.equal(run.stdout.trim(), 'valid');
});

test('the document lists every documented route, with request schemas, and nothing else', async (t) => {
  const h = await buildTestApp(t);
  const doc = (await h.get('/openapi.json', null)).json() as Doc;
  const documented = h.app.routeTable.filter((r) => !r.hidden && !r.autoHead);
  assert.ok(documented.length >= 10);
  const expected = new Set(documented.map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.url)}`));
  const listed = new Set(
    Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => m !== 'head')
        .map((m) => `${m} ${p}`),
    ),
  );
  assert.deepEqual(
    [...expected].filter((k) => !listed.has(k)),
    [],
    'routes missing from the document',
  );
  assert.deepEqual(
    [...listed].filter((k) => !expected.has(k)),
    [],
    'operations in the document that no route serves',
  );
  for (const route of documented) {
    const op = doc.paths[toOpenApiPath(route.url)]![route.method.toLowerCase()]!;
    // 204 where nothing is answered (DELETE /auth/session)
    assert.ok(op.responses?.['200'] ?? op.responses?.['204'], `${route.method} ${route.url}: no 200 response`);
    if (route.method === 'POST' || route.method === 'PUT') {
      // JSON, or another declared type for routes that take one (multipart uploads).
      const schemas = Object.values(op.requestBody?.content ?? {}).map((c) => c.schema);
      assert.ok(
        schemas.length > 0 && schemas.every((s) => s && typeof s === 'object'),
        `${route.method} ${route.url}: no request schema`,
      );
      assert.ok(op.responses?.['422'], `${route.method} ${route.url}: the 422 validation error is not documented`);
    }
    if (route.public) assert.deepEqual(op.security, [], `${route.url} is public but the document asks for credentials`);
    else assert.ok(op.responses?.['401'], `${route.method} ${route.url}: 401 not documented`);
  }
  // Shared schemas keep their model names (calls spec; the reference document's component names).
  for (const name of ['CallSchema', 'HTTPValidationError'])
    assert.ok(doc.components?.schemas?.[name], `component ${name}`);
});

test('draft-07 tuples become prefixItems (JSON Schema 2020-12)', () => {
  const converted = toJsonSchema2020({
    type: 'array',
    items: [{ type: 'string' }, { type: 'array', items: { type: 'integer' } }],
    additionalItems: false,
    minItems: 2,
  });
  assert.deepEqual(converted, {
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'array', items: { type: 'integer' } }],
    items: false,
    minItems: 2,
  });
  assert.deepEqual(toJsonSchema2020({ items: { type: 'string' } }), { items: { type: 'string' } });
});
