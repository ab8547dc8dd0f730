import { optionalString } from '../../lib/search.js';

export interface CompareSearch {
  /** Evaluation root call ids, comma-separated (the URL stays readable). */
  ids: string;
  /** `scores.…` field: rows with the largest difference in it first. */
  diff?: string;
  /** Score dimension the leaderboard ranks by. */
  rank?: string;
  /** Selected row digest. */
  row?: string;
  /** The baseline run: every other run's change from it. */
  base?: string;
  /** Rows where score dimension `score` (a label) meets `cond` (`value` for above/below), in run `in` or any. */
  score?: string;
  cond?: 'pass' | 'fail' | 'gt' | 'lt';
  value?: number;
  in?: string;
}

const CONDITIONS = ['pass', 'fail', 'gt', 'lt'] as const;

/** At most this many runs side by side; more are dropped from the URL. */
export const MAX_COMPARED = 8;

/** The compare page's search parameters from the URL (unknown or malformed ones dropped). */
export function parseCompareSearch(raw: Record<string, unknown>): CompareSearch {
  const list = Array.isArray(raw.ids) ? raw.ids.join(',') : String(raw.ids ?? '');
  const ids = [
    ...new Set(
      list
        .split(',')
        .map((s) => s.trim())
        .filter((s) => /^[\w-]{1,64}$/.test(s)),
    ),
  ].slice(0, MAX_COMPARED);
  const out: CompareSearch = { ids: ids.join(',') };
  for (const k of ['diff', 'rank', 'row', 'base', 'score', 'in'] as const) {
    const v = optionalString(raw[k]);
    if (v && v.length <= 200) out[k] = v;
  }
  const cond = CONDITIONS.find((c) => c === raw.cond);
  if (cond) out.cond = cond;
  const value = typeof raw.value === 'number' ? raw.value : Number(raw.value);
  if (raw.value !== undefined && raw.value !== '' && Number.isFinite(value)) out.value = value;
  return out;
}
