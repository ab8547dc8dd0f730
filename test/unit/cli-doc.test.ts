import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { USAGE } from '../../src/cli/usage.js';

/** docs/cli.md prints the CLI's help as `heddle help` does: a new command or option shows up there too. */
test('docs/cli.md holds the help text of src/cli/usage.ts, word for word', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const doc = fs.readFileSync(path.join(root, 'docs', 'cli.md'), 'utf8');
  assert.ok(doc.includes(`\`\`\`\n${USAGE}\n\`\`\``), 'docs/cli.md has a fenced block equal to USAGE');
});
