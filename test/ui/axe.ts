/**
 * axe-core inside the test page: the library's source is injected as a script (not
 * @axe-core/playwright, which needs Node 22) and run against the whole document. Returns the
 * serious and critical violations as readable lines, empty when the page passes.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeNode {
  target: string[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

export async function axeViolations(page: Page): Promise<string[]> {
  // The app's CSP forbids inline script; addScriptTag goes through the DevTools protocol, which CSP
  // does not block, and page.evaluate of the source is the fallback.
  if (!(await page.evaluate(() => 'axe' in window))) {
    try {
      await page.addScriptTag({ content: axeSource });
    } catch {
      /* fall through to evaluate */
    }
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  }
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: unknown[] }> } }
    ).axe;
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 4)
          .map(
            (n) =>
              `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, ' ').slice(0, 160)})` : ''}`,
          )
          .join('; ')}${v.nodes.length > 4 ? ` … ${v.nodes.length} nodes` : ''}`,
    );
}
