/**
 * Token usage as clients report it in `summary.usage` (model → counts, docs/spec/calls.md §2.5), read
 * the way the analytics endpoints need it (§4.9, §4.10): provider aliases summed
 * (`prompt_tokens + input_tokens`, `completion_tokens + output_tokens`), anything that is not a
 * JSON number counted as 0.
 */
export interface ModelUsage {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  requests: number;
  /** As reported; null when missing or not a number. */
  total_tokens: number | null;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const numberOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;

/** The usage entries of a stored summary (JSON text), in key order; [] when there is none. */
export function usageEntries(summaryText: string | null): ModelUsage[] {
  return summaryText === null ? [] : usageEntriesOf(JSON.parse(summaryText));
}

/** The usage entries of a summary already parsed (as `usageEntries` reads its text). */
export function usageEntriesOf(summary: unknown): ModelUsage[] {
  if (!isObject(summary) || !isObject(summary.usage)) return [];
  return Object.entries(summary.usage).map(([model, raw]) => {
    const u = isObject(raw) ? raw : {};
    return {
      model,
      prompt_tokens: numberOr(u.prompt_tokens, 0) + numberOr(u.input_tokens, 0),
      completion_tokens: numberOr(u.completion_tokens, 0) + numberOr(u.output_tokens, 0),
      requests: numberOr(u.requests, 0),
      total_tokens: typeof u.total_tokens === 'number' && Number.isFinite(u.total_tokens) ? u.total_tokens : null,
      cache_read_input_tokens: numberOr(u.cache_read_input_tokens, 0),
      cache_creation_input_tokens: numberOr(u.cache_creation_input_tokens, 0),
    };
  });
}
