import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../helpers/server-process.js';

/**
 * The documentation's runnable snippets: a fenced block right after an `<!-- snippet: NAME -->`
 * comment (blank lines between them allowed), in README.md and the pages of docs/ (docs/*.md).
 * The docs are the source: tests run these blocks as printed. Names are unique across all files.
 */

export interface Snippet {
  name: string;
  /** The fence's info string (`sh`, `python`, `js`). */
  lang: string;
  code: string;
  /** The file it is in, relative to the repository root (`README.md`, `docs/deploy.md`). */
  file: string;
  /** Where the block sits in its file (offset of its marker), for ordering checks within one file. */
  offset: number;
}

const MARKER = /<!--\s*snippet:\s*([\w-]+)\s*-->\s*\n(?:[ \t]*\n)*```([\w-]*)[^\n]*\n([\s\S]*?)\n```/g;

export function readmeText(): string {
  return fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
}

/** README.md first, then docs/*.md in name order: the files snippets are read from. */
export function snippetFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** The snippets of the given files' texts (default: README.md and docs/*.md, read now). */
export function docSnippets(
  files: Array<{ file: string; text: string }> = snippetFiles().map((file) => ({
    file,
    text: fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'),
  })),
): Map<string, Snippet> {
  const out = new Map<string, Snippet>();
  for (const { file, text } of files) {
    for (const m of text.matchAll(MARKER)) {
      const seen = out.get(m[1]!);
      if (seen) throw new Error(`two snippets named ${m[1]}: in ${seen.file} and in ${file}`);
      out.set(m[1]!, { name: m[1]!, lang: m[2]!, code: `${m[3]}\n`, file, offset: m.index });
    }
  }
  return out;
}

export function snippet(snippets: Map<string, Snippet>, name: string): Snippet {
  const found = snippets.get(name);
  if (!found) {
    throw new Error(`no <!-- snippet: ${name} --> before a fenced block in README.md or docs/*.md`);
  }
  return found;
}

/** The set-up block read as a user follows it: the entity a key is created for, and the exports. */
export interface SetUp {
  /** `--entity` of the `keys create` line, null when the block creates no key. */
  keyEntity: string | null;
  exports: Array<{ name: string; value: string }>;
}

export function parseSetUp(code: string): SetUp {
  const entity = /\bkeys create\b.*--entity[ =](\S+)/.exec(code);
  const exports = [...code.matchAll(/^\s*export\s+([A-Z_][A-Z0-9_]*)=(.+?)\s*$/gm)].map((m) => ({
    name: m[1]!,
    value: m[2]!.replace(/^(['"])(.*)\1$/, '$2'),
  }));
  return { keyEntity: entity?.[1] ?? null, exports };
}

/**
 * The variables a user ends up with after the set-up block against `serverUrl`: the README's
 * `http://127.0.0.1:8080` becomes the test server's address, a `<...>` placeholder the key.
 */
export function setUpEnv(setUp: SetUp, serverUrl: string, key: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { name, value } of setUp.exports) {
    env[name] = value.replace(/^<[^>]*>$/, key).replace(/^http:\/\/(127\.0\.0\.1|localhost):8080/, serverUrl);
  }
  return env;
}
