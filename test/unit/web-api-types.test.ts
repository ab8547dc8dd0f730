import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { currentOpenApi, GENERATED_FILE, renderApiTypes, typeOf } from '../../scripts/web-api-types.js';

/**
 * The web app's API types come from the server's /openapi.json (scripts/web-api-types.ts): the
 * committed web/src/api/openapi.gen.ts must be what the server describes now, so a changed request
 * schema breaks the web build's type check instead of a page at run time.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('web/src/api/openapi.gen.ts is what /openapi.json gives now (regenerate: npx tsx scripts/web-api-types.ts)', async () => {
  const committed = readFileSync(path.join(REPO_ROOT, GENERATED_FILE), 'utf8');
  assert.equal(committed, renderApiTypes(await currentOpenApi()));
});

test('schemas become the types a body must have', () => {
  assert.equal(typeOf({ type: ['string', 'null'] }), 'string | null');
  assert.equal(typeOf({ enum: ['asc', 'desc'] }), '"asc" | "desc"');
  assert.equal(
    typeOf({ type: 'array', items: { $ref: '#/components/schemas/QueryOperand' } }),
    'Array<ApiSchemas["QueryOperand"]>',
  );
  assert.equal(
    typeOf({
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'integer' }, 'b-c': { type: 'boolean' } },
      additionalProperties: false,
    }),
    '{\n  a: number;\n  "b-c"?: boolean;\n}',
  );
  assert.equal(
    typeOf({ allOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { const: 1 }] }),
    '(string | number) & 1',
  );
});
