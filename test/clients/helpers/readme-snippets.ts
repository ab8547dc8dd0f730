import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../helpers/server-process.js';

/**
 * The README's runnable snippets: a fenced block right after an `<!-- snippet: NAME -->` comment
 * (blank lines between them allowed). The README is the source: tests run these blocks as printed.
 */

export interface Snippet {
  name: string;
  /** The fence's info string (`sh`, `python`, `js`). */
  lang: string;
  code: string;
  /** Where the block sits in README.md (offset of its marker), for ordering checks. */
  offset: number;
}

const MARKER = /<!--\s*snippet:\s*([\w-]+)\s*-->\s*\n(?:[ \t]*\n)*```([\w-]*)[^\n]*\n([\s\S]*?)\n```/g;

export function readmeText(): string {
  return fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
}

export function readmeSnippets(text = readmeText()): Map<string, Snippet> {
  const out = new Map<string, Snippet>();
  for (const m of text.matchAll(MARKER)) {
    if (out.has(m[1]!)) throw new Error(`README.md: two snippets named ${m[1]}`);
    out.set(m[1]!, { name: m[1]!, lang: m[2]!, code: `${m[3]}\n`, offset: m.index });
  }
  return out;
}

export function snippet(snippets: Map<string, Snippet>, name: string): Snippet {
  const found = snippets.get(name);
  if (!found) throw new Error(`README.md has no <!-- snippet: ${name} --> before a fenced block`);
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
