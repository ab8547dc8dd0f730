/**
 * Nothing from a trace may run as HTML or script: the web app's source has no raw HTML sinks and
 * no eval, and index.html carries no inline script (the server's CSP forbids it).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const SINKS =
  /dangerouslySetInnerHTML|\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new Function\s*\(/;

function* files(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (/\.(tsx?|css)$/.test(e.name)) yield p;
  }
}

test('web/src has no raw HTML sinks or eval', () => {
  const hits: string[] = [];
  for (const f of files(path.join(WEB, 'src')))
    fs.readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => SINKS.test(line) && hits.push(`${path.relative(WEB, f)}:${i + 1}: ${line.trim()}`));
  assert.deepEqual(hits, []);
});

test('index.html loads scripts only from files', () => {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    assert.match(m[1]!, /\bsrc=/, 'every script has a src');
    assert.equal(m[2]!.trim(), '', 'no inline script body');
  }
});

test('markdown from traces: only http, https and mailto links; HTML stays text', async () => {
  const { safeHref, parseBlocks } = await import('../../web/src/lib/markdown.js');
  for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<b>', 'vbscript:x', '/relative', ''])
    assert.equal(safeHref(bad), null, bad);
  assert.equal(safeHref('https://example.com/a'), 'https://example.com/a');
  assert.equal(safeHref('mailto:a@example.com'), 'mailto:a@example.com');
  const blocks = parseBlocks('# T\n\n<script>x()</script>\n- a\n- b\n\n```\n<b>\n```');
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ['heading', 'p', 'ul', 'code'],
  );
  assert.deepEqual(blocks[1], { kind: 'p', text: '<script>x()</script>' });
});
