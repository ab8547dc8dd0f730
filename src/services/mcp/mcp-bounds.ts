/**
 * Bounds on what one MCP tool call returns (docs/mcp.md "Bounds and paging"): an agent reads the
 * answer into its context, so every answer stays under MAX_RESULT_CHARS of JSON text and says how
 * to fetch the rest.
 */

/** The most JSON text one tool result carries. */
export const MAX_RESULT_CHARS = 60_000;
/** The default and largest page of a list tool. */
export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

/** What a list tool answers besides its items: where the page starts and how to get the next. */
export interface PageInfo {
  offset: number;
  returned: number;
  next_offset: number | null;
  /** One sentence for the agent: how to page, or that nothing is left. */
  paging: string;
  /** Some long strings or arrays inside the items were shortened to fit (see `get_call`, `read_object`). */
  truncated?: boolean;
}

/** Shortens strings over `maxString` characters and arrays over `maxItems` items, deeply. */
function shrinkValue(value: unknown, maxString: number, maxItems: number, marks: { hit: boolean }): unknown {
  if (typeof value === 'string') {
    if (value.length <= maxString) return value;
    marks.hit = true;
    return `${value.slice(0, maxString)}…[${value.length - maxString} more characters]`;
  }
  if (Array.isArray(value)) {
    const head = value.slice(0, maxItems).map((v) => shrinkValue(v, maxString, maxItems, marks));
    if (value.length > maxItems) {
      marks.hit = true;
      head.push(`…[${value.length - maxItems} more items]`);
    }
    return head;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [key, v] of entries.slice(0, maxItems)) out[key] = shrinkValue(v, maxString, maxItems, marks);
    if (entries.length > maxItems) {
      marks.hit = true;
      out['…'] = `${entries.length - maxItems} more keys`;
    }
    return out;
  }
  return value;
}

/**
 * `value` itself when its JSON fits in `budget` characters, else a copy with long strings and
 * collections cut shorter and shorter until it does (each cut says how much it left out).
 */
export function fitValue(value: unknown, budget: number): { value: unknown; truncated: boolean } {
  if (JSON.stringify(value).length <= budget) return { value, truncated: false };
  let maxString = 4096;
  let maxItems = 200;
  for (;;) {
    const marks = { hit: false };
    const shrunk = shrinkValue(value, maxString, maxItems, marks);
    if (JSON.stringify(shrunk).length <= budget || (maxString <= 16 && maxItems <= 2))
      return { value: shrunk, truncated: true };
    maxString = Math.max(16, Math.floor(maxString / 2));
    maxItems = Math.max(2, Math.floor(maxItems / 2));
  }
}

/** The page size asked for, within 1..max (default when absent). */
export function pageLimit(limit: number | undefined, max = MAX_PAGE, dflt = DEFAULT_PAGE): number {
  if (limit === undefined) return dflt;
  return Math.min(Math.max(1, Math.floor(limit)), max);
}

/**
 * Fits a page of items into the result budget: items are kept in order while they fit (an item
 * too large alone is shortened); `more` says whether the source had items after `items`.
 */
export function fitPage<T>(
  items: T[],
  offset: number,
  more: boolean,
  budget = MAX_RESULT_CHARS - 1_000,
): { items: unknown[]; page: PageInfo } {
  const kept: unknown[] = [];
  let used = 2;
  let truncated = false;
  for (const item of items) {
    const share = kept.length === 0 ? budget : budget - used;
    let text = JSON.stringify(item);
    let value: unknown = item;
    if (text.length > share) {
      if (kept.length > 0) break;
      const fitted = fitValue(item, share);
      value = fitted.value;
      truncated ||= fitted.truncated;
      text = JSON.stringify(value);
    }
    kept.push(value);
    used += text.length + 1;
  }
  const hasMore = more || kept.length < items.length;
  const next = hasMore ? offset + kept.length : null;
  const page: PageInfo = {
    offset,
    returned: kept.length,
    next_offset: next,
    paging:
      next === null
        ? 'This is the last page.'
        : `More results: call this tool again with the same arguments and offset=${next}.`,
  };
  if (truncated) page.truncated = true;
  return { items: kept, page };
}
