import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findImportCycles } from '../../scripts/import-cycles.js';

/**
 * No import circles in the server (`src/`) or the web app (`web/src/`): two modules that import each other, directly or
 * through others, cannot be read, tested or moved apart (issue 32). scripts/import-cycles.ts
 * counts type-only imports too; dynamic `import()` loads lazily and is left out.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('the server has no import circle', () => {
  assert.deepEqual(findImportCycles(path.join(REPO_ROOT, 'src')), []);
});

test('the web app has no import circle', () => {
  assert.deepEqual(findImportCycles(path.join(REPO_ROOT, 'web', 'src')), []);
});

test('the checker finds a circle through three files, a type-only import and a self-import', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'heddle-cycles-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'a.ts'), "import { b } from './sub/b.js';\nexport const a = b;\n");
  writeFileSync(path.join(dir, 'sub', 'b.ts'), "export { c as b } from '../c.js';\n");
  writeFileSync(path.join(dir, 'c.ts'), "import type { A } from './a.js';\nexport const c = 1 as unknown as A;\n");
  writeFileSync(path.join(dir, 'self.ts'), "import './self.js';\n");
  writeFileSync(path.join(dir, 'lazy.ts'), "export const load = () => import('./a.js');\n");
  writeFileSync(path.join(dir, 'page.tsx'), "import { a } from './a';\nexport const P = a;\n");
  assert.deepEqual(findImportCycles(dir), [['a.ts', 'c.ts', 'sub/b.ts'], ['self.ts']]);
});
