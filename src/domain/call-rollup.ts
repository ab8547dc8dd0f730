/**
 * The hourly roll-up of calls behind `/calls/stats` (docs/call-rollups.md): what one stored call row
 * adds to it, and the latency histogram the roll-up keeps for percentiles. Pure: the store adapters
 * read the rows and write the sums, the stats service reads them back.
 *
 * The roll-up is the sum of `contribution(row)` over every row written since it exists, so any write
 * keeps it exact by subtracting the row's contribution before the write and adding the one after.
 */
import { usageEntries, usageEntriesOf, type ModelUsage } from './llm-usage.js';

/** Roll-up granularity: one UTC hour in microseconds. */
export const ROLLUP_BUCKET_US = 3_600_000_000;

/** The columns of a call row the roll-up reads (the `rolled_up` flag says whether it is counted). */
export interface RollupSource {
  started_at: number | null;
  deleted_at: number | null;
  op_name: string | null;
  ended_at: number | null;
  exception: string | null;
  summary: string | null;
  /**
   * `summary` as its writer parsed it before writing it as JSON text (call-service.ts `#endPart`),
   * when it had: the usage is then read from this value instead of parsing the text again.
   */
  parsed_summary?: unknown;
}

/**
 * The model scope of a roll-up row: every call once (model ''), a call once per model of its usage
 * (with that model's token sums), or a call without usage (model '') — so grouping by model needs no
 * subtraction and an ungrouped count never counts a multi-model call twice.
 */
export const SCOPE_ALL = 0;
export const SCOPE_MODEL = 1;
export const SCOPE_NO_USAGE = 2;

/** Sums of one (hour, op_name, status, scope, model) group. */
export interface RollupSums {
  calls: number;
  errors: number;
  latency_count: number;
  latency_sum: number;
  latency_nonzero: number;
  usage_rows: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

export const SUM_COLUMNS: readonly (keyof RollupSums)[] = [
  'calls',
  'errors',
  'latency_count',
  'latency_sum',
  'latency_nonzero',
  'usage_rows',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
];

export interface RollupKey {
  project_id: string;
  hour: number;
  op_name: string;
  status: string;
  scope: number;
  model: string;
}

export type RollupStatsRow = RollupKey & RollupSums;
export type RollupLatencyRow = RollupKey & { bin: number; calls: number };

const emptySums = (): RollupSums => ({
  calls: 0,
  errors: 0,
  latency_count: 0,
  latency_sum: 0,
  latency_nonzero: 0,
  usage_rows: 0,
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
});

/** Status as `/calls/stats` groups it (call-stats-service.ts): error, running or success. */
export const rollupStatus = (row: RollupSource): string =>
  row.exception != null ? 'error' : row.ended_at == null ? 'running' : 'success';

/** Latency as `/calls/stats` reports it: whole milliseconds, null while running. */
export const rollupLatency = (row: RollupSource): number | null =>
  row.ended_at == null || row.started_at == null ? null : Math.floor((row.ended_at - row.started_at) / 1000);

/**
 * Histogram bins. Latencies within ±EXACT_MAX ms keep a bin of their own, so they are exact. Above,
 * bin k holds (2^((k−1)/8), 2^(k/8)] ms, eight bins per doubling (γ = 2^(1/8)); its value is read as
 * 2γ^k/(γ+1), which is within (γ−1)/(γ+1) ≤ 4.33 % of every value in the bin. Log bins are offset by
 * LOG_BIN_OFFSET so they never meet the exact ones; a negative latency (an end stamped before the
 * start by a skewed client clock) gets the negated bin of its magnitude.
 */
const EXACT_MAX = 16;
const BINS_PER_DOUBLING = 8;
const LOG_BIN_OFFSET = 1000;
const GAMMA = 2 ** (1 / BINS_PER_DOUBLING);
/** The bound on a percentile's relative error from the histogram (docs/call-rollups.md). */
export const LATENCY_RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1);

export function latencyBin(ms: number): number {
  if (ms < 0) return -latencyBin(-ms);
  if (ms <= EXACT_MAX) return ms;
  return LOG_BIN_OFFSET + Math.ceil(BINS_PER_DOUBLING * Math.log2(ms));
}

/** The value a bin stands for (exact for the exact bins). */
export function binValue(bin: number): number {
  if (bin < 0) return -binValue(-bin);
  if (bin <= EXACT_MAX) return bin;
  return (2 * GAMMA ** (bin - LOG_BIN_OFFSET)) / (GAMMA + 1);
}

/**
 * The p-th percentile (0–100) of a histogram, as metric-stats.ts `percentile` computes it over the
 * sorted values (linear interpolation between the closest ranks), each value read as its bin's value.
 */
export function histogramPercentile(bins: ReadonlyMap<number, number>, p: number): number | null {
  const sorted = [...bins.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return null;
  const rank = (p / 100) * (total - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const at = (r: number): number => {
    let seen = 0;
    for (const [bin, n] of sorted) {
      seen += n;
      if (r < seen) return binValue(bin);
    }
    return binValue(sorted[sorted.length - 1]![0]);
  };
  const a = at(lo);
  return a + (at(hi) - a) * (rank - lo);
}

/** One row of a delta: the sums of one roll-up key and its histogram counts by bin. */
export interface RollupDeltaRow {
  readonly sums: RollupStatsRow;
  readonly bins: ReadonlyMap<number, RollupLatencyRow>;
}

/** A delta row with the key string that orders the upserts. */
interface DeltaRow extends RollupDeltaRow {
  readonly key: string;
  readonly bins: Map<number, RollupLatencyRow>;
}

/** The (scope, model) part of a row's key under its group, for the two scopes without a model. */
const ALL_KEY = `${SCOPE_ALL}\u0000`;
const NO_USAGE_KEY = `${SCOPE_NO_USAGE}\u0000`;
const NO_USAGE: readonly ModelUsage[] = [];

/**
 * Changes to the roll-up collected over one transaction: contributions added (sign 1) or taken
 * away (sign −1), merged per key so each roll-up row is written once.
 *
 * This runs for every call written (ingest's hot path): rows are found by one lookup of the
 * (project, hour, op, status) part of the key per call and short lookups under it, and the full
 * key strings, which only order the upserts, are built once per row of the delta.
 */
export class RollupDelta {
  readonly #groups = new Map<string, DeltaGroup>();

  /** Adds (sign 1) or subtracts (sign −1) what `row` contributes; a row not started or deleted adds nothing. */
  add(projectId: string, row: RollupSource, sign: 1 | -1): void {
    if (row.started_at == null || row.deleted_at != null) return;
    const hour = Math.floor(row.started_at / ROLLUP_BUCKET_US) * ROLLUP_BUCKET_US;
    const opName = row.op_name ?? '';
    const status = rollupStatus(row);
    const latency = rollupLatency(row);
    const prefix = `${projectId}\u0000${hour}\u0000${opName}\u0000${status}\u0000`;
    let group = this.#groups.get(prefix);
    if (!group) this.#groups.set(prefix, (group = { projectId, hour, opName, status, prefix, rows: new Map() }));
    const error = row.exception != null ? sign : 0;
    const bin = latency === null ? 0 : latencyBin(latency);
    count(group, SCOPE_ALL, '', ALL_KEY, sign, error, latency, bin);
    const entries = usageOf(row);
    if (entries.length === 0) count(group, SCOPE_NO_USAGE, '', NO_USAGE_KEY, sign, error, latency, bin);
    for (const u of entries) {
      const s = count(group, SCOPE_MODEL, u.model, `${SCOPE_MODEL}\u0000${u.model}`, sign, error, latency, bin);
      s.usage_rows += sign;
      s.input_tokens += sign * u.prompt_tokens;
      s.output_tokens += sign * u.completion_tokens;
      s.total_tokens += sign * (u.total_tokens ?? 0);
      s.cache_read_tokens += sign * u.cache_read_input_tokens;
      s.cache_creation_tokens += sign * u.cache_creation_input_tokens;
    }
  }

  /**
   * Every row of the delta in the order its key was first added, including rows whose changes
   * cancelled out (statsRows and latencyRows leave those out): for a writer that encodes the rows
   * itself (postgres/rollup-pending.ts).
   */
  rows(): IterableIterator<RollupDeltaRow> {
    return this.#rows();
  }

  /**
   * The merged stats rows that change something, in key order (one lock order for every writer that
   * upserts them), or in the order their keys were first added with `ordered` false.
   */
  statsRows(ordered = true): RollupStatsRow[] {
    if (!ordered) {
      const rows: RollupStatsRow[] = [];
      for (const r of this.#rows()) if (SUM_COLUMNS.some((c) => r.sums[c] !== 0)) rows.push(r.sums);
      return rows;
    }
    const out: [string, RollupStatsRow][] = [];
    for (const r of this.#rows()) if (SUM_COLUMNS.some((c) => r.sums[c] !== 0)) out.push([r.key, r.sums]);
    return out.sort((a, b) => compare(a[0], b[0])).map(([, r]) => r);
  }

  latencyRows(ordered = true): RollupLatencyRow[] {
    if (!ordered) {
      const rows: RollupLatencyRow[] = [];
      for (const r of this.#rows()) for (const b of r.bins.values()) if (b.calls !== 0) rows.push(b);
      return rows;
    }
    const out: [string, RollupLatencyRow][] = [];
    for (const r of this.#rows())
      for (const [bin, b] of r.bins) if (b.calls !== 0) out.push([`${r.key}\u0000${bin}`, b]);
    return out.sort((a, b) => compare(a[0], b[0])).map(([, r]) => r);
  }

  get empty(): boolean {
    return this.statsRows().length === 0 && this.latencyRows().length === 0;
  }

  *#rows(): IterableIterator<DeltaRow> {
    for (const group of this.#groups.values()) yield* group.rows.values();
  }
}

/** The rows of one (project, hour, op, status) of a delta by (scope, model); `prefix` keys the group. */
interface DeltaGroup {
  readonly projectId: string;
  readonly hour: number;
  readonly opName: string;
  readonly status: string;
  readonly prefix: string;
  readonly rows: Map<string, DeltaRow>;
}

/** Counts one call (its latency in `bin`) in the row of `scope`/`model` of its group; that row's sums. */
function count(
  group: DeltaGroup,
  scope: number,
  model: string,
  scoped: string,
  sign: 1 | -1,
  error: number,
  latency: number | null,
  bin: number,
): RollupSums {
  let r = group.rows.get(scoped);
  if (!r) {
    const { projectId: project_id, hour, opName: op_name, status } = group;
    const sums = { project_id, hour, op_name, status, scope, model, ...emptySums() };
    group.rows.set(scoped, (r = { key: group.prefix + scoped, sums, bins: new Map() }));
  }
  const s = r.sums;
  s.calls += sign;
  s.errors += error;
  if (latency !== null) {
    s.latency_count += sign;
    s.latency_sum += sign * latency;
    if (latency !== 0) s.latency_nonzero += sign;
    let b = r.bins.get(bin);
    if (!b) {
      const { projectId: project_id, hour, opName: op_name, status } = group;
      r.bins.set(bin, (b = { project_id, hour, op_name, status, scope, model, bin, calls: 0 }));
    }
    b.calls += sign;
  }
  return s;
}

/**
 * The usage entries of a row: from the summary its writer parsed, else from the text. A summary
 * without usage is not parsed; summaries are stored as JSON.stringify writes them (call-service.ts;
 * PostgreSQL prints JSONB alike), so a usage key reads exactly `"usage"`. The parsed value and the
 * text are the same JSON (the text is JSON.stringify of the value), so both give the same entries.
 */
function usageOf(row: RollupSource): readonly ModelUsage[] {
  if (row.parsed_summary !== undefined) return usageEntriesOf(row.parsed_summary);
  return row.summary !== null && row.summary.includes('"usage"') ? usageEntries(row.summary) : NO_USAGE;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
