import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

/**
 * eslint.config.js: the layer rules of shared/STYLE.md report a forbidden import. Each case lints a
 * one-line snippet as if it were a file at `file` (ESLint picks the rules by path), so the real
 * config is under test, not a copy of it.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const eslint = new ESLint({ cwd: REPO_ROOT });

/** The restricted-import messages ESLint reports for `code` placed at `file`. */
async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  assert.ok(result !== undefined);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** [file, import specifier, importing with `import type`]. */
const FORBIDDEN: Array<[string, string, boolean?]> = [
  // domain/: no I/O, no store
  ['src/domain/example.ts', 'node:fs'],
  ['src/domain/example.ts', 'fs/promises'],
  ['src/domain/query/example.ts', 'node:net'],
  ['src/domain/example.ts', 'node:child_process'],
  ['src/domain/example.ts', 'pg'],
  ['src/domain/example.ts', 'better-sqlite3'],
  ['src/domain/example.ts', 'fastify'],
  ['src/domain/example.ts', '@fastify/multipart'],
  ['src/domain/example.ts', '../store/types.js', true],
  ['src/domain/query/example.ts', '../../store/sqlite/sqlite-store.js'],
  // services/: no Fastify, routes or plugins
  ['src/services/example.ts', 'fastify', true],
  ['src/services/example.ts', '@fastify/swagger'],
  ['src/services/training/example.ts', '../../routes/calls.js'],
  ['src/services/example.ts', '../plugins/auth.js'],
  ['src/services/example.ts', '../store/sqlite/sqlite-store.js'],
  // only store/create-store.ts picks an adapter; only the adapters use a driver
  ['src/routes/example.ts', '../store/postgres/postgres-store.js'],
  ['src/plugins/example.ts', 'better-sqlite3'],
  ['src/store/sql/example.ts', '../sqlite/sqlite-dialect.js'],
  ['src/store/sql/example.ts', 'pg'],
  // the two SQL adapters never import each other
  ['src/store/sqlite/example.ts', '../postgres/postgres-dialect.js'],
  ['src/store/postgres/example.ts', '../sqlite/sqlite-dialect.js'],
  // policy/ takes its random numbers from training/random.ts, not the objective
  ['src/training/policy/example.ts', '../objective/advantages.js'],
  // web/src: routes → features → ui, api, lib
  ['web/src/features/calls/example.ts', '../../routes/traces.js'],
  ['web/src/ui/example.ts', '../features/calls/traces-page.js'],
  ['web/src/api/example.ts', '../routes/router.js', true],
  ['web/src/lib/example.ts', '../api/calls.js'],
  ['web/src/lib/example.ts', '../ui/chart.js', true],
];

const ALLOWED: Array<[string, string]> = [
  ['src/domain/example.ts', './rows.js'],
  ['src/domain/example.ts', 'node:crypto'],
  ['src/domain/example.ts', '../errors/app-error.js'],
  ['src/services/example.ts', '../store/types.js'],
  ['src/services/example.ts', 'node:net'],
  ['src/store/sqlite/example.ts', '../sql/prefix-successor.js'],
  ['src/store/postgres/example.ts', '../sql/prefix-successor.js'],
  ['src/store/postgres/example.ts', 'pg'],
  ['src/store/sqlite/example.ts', 'better-sqlite3'],
  ['src/store/create-store.ts', './sqlite/sqlite-store.js'],
  ['src/app.ts', './store/create-store.js'],
  ['src/training/policy/example.ts', '../random.js'],
  ['src/routes/example.ts', 'fastify'],
];

test('a layer-breaking import is reported', async () => {
  for (const [file, specifier, typeOnly] of FORBIDDEN) {
    const code = `import ${typeOnly ? 'type ' : ''}* as m from '${specifier}';\nexport { m };\n`;
    const messages = await restrictedImports(file, code);
    assert.equal(messages.length, 1, `${file} importing ${specifier}: ${JSON.stringify(messages)}`);
  }
});

test('a re-export counts as an import', async () => {
  const messages = await restrictedImports(
    'src/domain/example.ts',
    "export type { CallRow } from '../store/types.js';\n",
  );
  assert.equal(messages.length, 1, JSON.stringify(messages));
});

test('imports the layers allow are not reported', async () => {
  for (const [file, specifier] of ALLOWED) {
    const messages = await restrictedImports(file, `import * as m from '${specifier}';\nexport { m };\n`);
    assert.deepEqual(messages, [], `${file} importing ${specifier}`);
  }
});
