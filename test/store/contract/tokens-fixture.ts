import { tokenUsage, type Call } from '../../../web/src/lib/call.js';

/**
 * Call summaries with every shape of `summary.usage` the web UI's token total (web/src/lib/call.ts
 * `tokenUsage`) distinguishes, for the tests of `summary.weave.total_tokens` (calls-tokens.test.ts,
 * calls-tokens-index.test.ts).
 */

/** Usage shapes: several models, input/output aliases, numeric strings, zero totals, non-objects. */
export const USAGES: readonly unknown[] = [
  undefined,
  {},
  { m: { total_tokens: 10 } },
  { m: { prompt_tokens: 3, completion_tokens: 4 } },
  { m: { input_tokens: 5, output_tokens: 6 } },
  { m: { prompt_tokens: 1, input_tokens: 2, completion_tokens: 3, output_tokens: 4 } },
  { m: { total_tokens: 0, prompt_tokens: 7, completion_tokens: 1 } },
  { m: { total_tokens: '100', prompt_tokens: '5', completion_tokens: 2 } },
  { a: { total_tokens: 10 }, b: { prompt_tokens: 4, output_tokens: 6 }, c: { requests: 1 } },
  { a: { total_tokens: 7 }, 'gpt-3.5': { total_tokens: 3 } },
  [{ total_tokens: 3 }, { input_tokens: 7 }],
  { m: null },
  { m: 5, n: 'x' },
  { m: [] },
  { m: {}, n: null },
  'usage',
  { m: { total_tokens: 2.5, prompt_tokens: 1 } },
  { m: { total_tokens: -4 } },
  { m: { total_tokens: true, prompt_tokens: 9 } },
  { m: { total_tokens: { n: 1 }, completion_tokens: 10 } },
];

/** The total the UI shows for a stored summary (JSON text), or null. */
export function uiTokens(summary: string): number | null {
  return tokenUsage({ summary: JSON.parse(summary) } as Call)?.total ?? null;
}

/** The summary of the `i`-th fixture call: one of USAGES, beside other keys. */
export function usageSummary(i: number, pick: number): string {
  const usage = USAGES[pick % USAGES.length];
  return JSON.stringify(usage === undefined ? { n: i } : { usage, n: i });
}
