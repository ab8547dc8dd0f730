import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * docs/architecture.md is a map of the code (issue 32): every folder or file it names in backticks
 * must exist, so a move or a rename that leaves the map behind fails here. A name counts as a path
 * when it starts with one of the repository's top folders and ends with `/` or a file extension;
 * placeholders (`src/routes/<area>.ts`) and globs (`src/store/sqlite/*-writes.ts`) are not paths.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = 'docs/architecture.md';
const PATH = /^(?:src|web|test|bench|worker|deploy|docs|scripts)\/(?:[\w./-]*(?:\/|\.[A-Za-z0-9]+))?$/;

/** The paths a Markdown text names in inline code spans (fenced blocks left out). */
function namedPaths(markdown: string): string[] {
  const prose = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  return [...new Set(spans.filter((span) => PATH.test(span)))];
}

function missing(paths: string[], root: string): string[] {
  return paths.filter((p) => {
    const full = path.join(root, p);
    if (!fs.existsSync(full)) return true;
    return p.endsWith('/') && !fs.statSync(full).isDirectory();
  });
}

test('every path docs/architecture.md names exists', () => {
  const paths = namedPaths(fs.readFileSync(path.join(REPO_ROOT, DOC), 'utf8'));
  // the map names the composition roots, the store, the indexer, the loops, web/ and worker/
  assert.ok(paths.length >= 60, `only ${paths.length} paths found in ${DOC}`);
  for (const root of [
    'src/app.ts',
    'src/services/index.ts',
    'web/src/routes/router.tsx',
    'worker/heddle_worker/cli.py',
  ])
    assert.ok(paths.includes(root), `${DOC} names ${root}`);
  assert.deepEqual(missing(paths, REPO_ROOT), [], `${DOC} names paths that do not exist`);
});

test('the check finds a missing file or folder, and skips placeholders, globs and fenced blocks', () => {
  const text = [
    'See `src/app.ts`, `src/no-such-file.ts`, `web/src/no-such-folder/` and `src/app.ts/`.',
    'Not paths: `src/routes/<area>.ts`, `src/store/sqlite/*-writes.ts`, `HEDDLE_PORT`, `npm test`,',
    '`lib/x.ts` (no top folder), `src/services` (neither `/` nor an extension).',
    '```',
    'src/also-missing.ts `src/fenced-missing.ts`',
    '```',
  ].join('\n');
  const paths = namedPaths(text);
  assert.deepEqual(paths, ['src/app.ts', 'src/no-such-file.ts', 'web/src/no-such-folder/', 'src/app.ts/']);
  assert.deepEqual(missing(paths, REPO_ROOT), ['src/no-such-file.ts', 'web/src/no-such-folder/', 'src/app.ts/']);
});
