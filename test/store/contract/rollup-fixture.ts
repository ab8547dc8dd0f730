import assert from 'node:assert/strict';
import { LATENCY_RELATIVE_ERROR } from '../../../src/domain/call-rollup.js';
import type { CallStatsReq } from '../../../src/schemas/calls-stats.js';
import type { Caller } from '../../../src/services/auth-service.js';
import { CallStatsService } from '../../../src/services/call-stats-service.js';
import type { LlmPrice, PriceLookup } from '../../../src/services/price-lookup.js';
import { ProjectAccess } from '../../../src/services/project-access.js';
import type { CallPart, TraceStore } from '../../../src/store/types.js';
import { end, start } from './parts.js';

/**
 * Randomised call writes and the comparison of `/calls/stats` answered from the call roll-up with
 * the scan (docs/call-rollups.md), for test/store/contract/call-rollups.test.ts and
 * test/store/schema/rollup-backfill.test.ts.
 */

export const HOUR = 3_600_000_000;
export const T0 = Date.UTC(2025, 0, 1) * 1000;
export const ADMIN: Caller = {
  userId: 'u',
  username: 'u',
  defaultEntity: 'x',
  isAdmin: true,
  entities: new Set(),
  roles: new Map(),
  keyId: null,
};

/** gpt-a's price, effective long before the data. */
export const PRICE_A: LlmPrice & { effective_date: number } = {
  prompt_token_cost: 0.000003,
  completion_token_cost: 0.000015,
  cache_read_input_token_cost: 0,
  cache_creation_input_token_cost: 0,
  effective_date: 0,
};

/** A price lookup (not the store): gpt-a priced, claude-b not. */
export const PRICES: PriceLookup = {
  forProject: async () => ({ find: (model: string) => (model === 'gpt-a' ? PRICE_A : null) }),
};

/** A small deterministic generator (mulberry32), so a failure reproduces. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomParts(projectId: string, n: number, random: () => number): { parts: CallPart[]; ids: string[] } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const ops = [
    `weave:///${projectId}/op/predict:v1`,
    `weave:///${projectId}/op/predict:v2`,
    `weave:///${projectId}/op/score:v1`,
    'plain-op',
  ];
  const latencies = [0, 0, 3, 16, 17, 250, 999, 1_000, 4_321, 60_000, 3_600_000, -5];
  const parts: CallPart[] = [];
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const id = `c${String(i).padStart(4, '0')}`;
    ids.push(id);
    const startedAt = () => T0 + Math.floor(random() * 72 * HOUR);
    const started = startedAt();
    const parent = i > 0 && random() < 0.3 ? ids[Math.floor(random() * i)]! : null;
    const s = start(projectId, id, {
      op_name: pick(ops),
      started_at: started,
      trace_id: parent === null ? `t-${id}` : `t-${parent}`,
      parent_id: parent,
    });
    const usage = (): string => {
      const models = random() < 0.4 ? [] : random() < 0.7 ? ['gpt-a'] : ['gpt-a', 'claude-b'];
      const u: Record<string, unknown> = {};
      for (const m of models) {
        const entry: Record<string, number> = {
          prompt_tokens: Math.floor(random() * 1000),
          completion_tokens: Math.floor(random() * 500),
        };
        if (random() < 0.8) entry.total_tokens = entry.prompt_tokens! + entry.completion_tokens!;
        if (random() < 0.3) entry.cache_read_input_tokens = Math.floor(random() * 100);
        u[m] = entry;
      }
      return JSON.stringify({ usage: u });
    };
    const e = (): CallPart =>
      end(projectId, id, {
        ended_at: started + pick(latencies) * 1000 + Math.floor(random() * 1000),
        exception: random() < 0.2 ? 'boom' : null,
        summary: usage(),
      });
    const r = random();
    if (r < 0.15)
      parts.push(s); // running
    else if (r < 0.3)
      parts.push(e(), s); // end before start
    else parts.push(s, e());
    if (random() < 0.1) parts.push(start(projectId, id, { ...s, op_name: pick(ops), started_at: startedAt() }));
    if (random() < 0.1) parts.push(e()); // a second end replaces the first
    if (random() < 0.1) parts.push({ kind: 'update', project_id: projectId, id, display_name: `n${i}` });
  }
  // shuffle in windows so some parts of a call land in other batches, in any order
  for (let i = parts.length - 1; i > 0; i -= 1) {
    const j = Math.max(0, i - Math.floor(random() * 8));
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  return { parts, ids };
}

export async function writeRandom(store: TraceStore, projectId: string, seed: number, n: number): Promise<string[]> {
  const random = rng(seed);
  const { parts, ids } = randomParts(projectId, n, random);
  for (let i = 0; i < parts.length;) {
    const size = 1 + Math.floor(random() * 40);
    await store.calls.write(parts.slice(i, i + size));
    i += size;
  }
  return ids;
}

const CALL_METRICS = [
  { metric: 'call_count', aggregations: ['sum', 'count', 'avg'] },
  { metric: 'error_count', aggregations: ['sum', 'avg', 'count_true', 'count_false'] },
  {
    metric: 'latency_ms',
    aggregations: ['sum', 'avg', 'count', 'count_true', 'count_false'],
    percentiles: [0, 50, 95, 99, 100],
  },
] as CallStatsReq['call_metrics'];
const USAGE_METRICS = [
  { metric: 'input_tokens' },
  { metric: 'output_tokens' },
  { metric: 'total_tokens' },
  { metric: 'cache_read_input_tokens' },
  { metric: 'cache_creation_input_tokens' },
  { metric: 'input_cost' },
  { metric: 'output_cost', aggregations: ['sum', 'avg'] },
  { metric: 'total_cost', percentiles: [50] },
] as CallStatsReq['usage_metrics'];

export function requests(projectId: string): CallStatsReq[] {
  const iso = (t: number) => new Date(t / 1000).toISOString();
  const base = { project_id: projectId, call_metrics: CALL_METRICS, usage_metrics: USAGE_METRICS, filter: null };
  const out: CallStatsReq[] = [];
  for (const [from, to, granularity] of [
    [0, 72, 3600],
    [0, 72, 21_600],
    [0, 96, 86_400],
    [5, 29, 7200],
  ] as const)
    for (const group_by of [[], ['op'], ['status'], ['model'], ['op', 'status'], ['model', 'op']] as const)
      out.push({
        ...base,
        start: iso(T0 + from * HOUR),
        end: iso(T0 + to * HOUR),
        granularity,
        group_by: [...group_by],
      });
  const range = { start: iso(T0), end: iso(T0 + 72 * HOUR), granularity: 21_600 };
  out.push({ ...base, ...range, filter: { op_names: [`weave:///${projectId}/op/predict:*`] } });
  out.push({
    ...base,
    ...range,
    filter: { op_names: [`weave:///${projectId}/op/score:v1`, 'plain-op'] },
    group_by: ['op'],
  });
  out.push({ ...base, ...range, timezone: 'Europe/Berlin', granularity: 86_400 });
  out.push({ ...base, ...range, timezone: 'Asia/Kolkata', granularity: 86_400 });
  return out;
}

/** Rollup and scan answers: equal, but costs to 1e-9 and latency percentiles to the histogram's bound. */
export function assertSame(rollup: Record<string, unknown>[], scan: Record<string, unknown>[], what: string): void {
  assert.equal(rollup.length, scan.length, `${what}: row count`);
  rollup.forEach((row, i) => {
    const want = scan[i]!;
    assert.deepEqual(Object.keys(row), Object.keys(want), `${what} row ${i}: columns`);
    for (const [k, v] of Object.entries(want)) {
      const got = row[k];
      if (typeof v === 'number' && typeof got === 'number' && k.endsWith('_cost')) {
        assert.ok(Math.abs(got - v) <= 1e-9 * Math.max(1, Math.abs(v)), `${what} row ${i} ${k}: ${got} vs ${v}`);
      } else if (typeof v === 'number' && typeof got === 'number' && /^p[\d.]+_latency_ms$/.test(k)) {
        // within α of the value; with a negative latency (an end before its start) within α of the
        // largest magnitude, as interpolating across zero cancels the relative bound
        const lo = Number(want.p0_latency_ms);
        const scale = lo < 0 ? Math.max(-lo, Math.abs(Number(want.p100_latency_ms))) : Math.abs(v);
        assert.ok(Math.abs(got - v) <= LATENCY_RELATIVE_ERROR * scale + 1e-9, `${what} row ${i} ${k}: ${got} vs ${v}`);
      } else assert.deepEqual(got, v, `${what} row ${i} ${k}`);
    }
  });
}

export async function compareAll(store: TraceStore, projectId: string): Promise<number> {
  const service = new CallStatsService(store, new ProjectAccess(store), PRICES);
  let calls = 0;
  for (const req of requests(projectId)) {
    const what = JSON.stringify({
      g: req.group_by,
      f: req.filter,
      gr: req.granularity,
      s: req.start,
      tz: req.timezone,
    });
    const scan = (await service.callStatsVia(ADMIN, req, 'scan'))!;
    const rollup = await service.callStatsVia(ADMIN, req, 'rollup');
    if (req.timezone === 'Asia/Kolkata') {
      // Kolkata midnight is 18:30 UTC: its buckets cut hours, so only the scan answers
      assert.equal(rollup, null, what);
      continue;
    }
    assert.ok(rollup, `${what}: the roll-up answers`);
    assert.equal(rollup.path, 'rollup');
    assertSame(rollup.res.call_buckets, scan.res.call_buckets, `${what} calls`);
    assertSame(rollup.res.usage_buckets, scan.res.usage_buckets, `${what} usage`);
    calls += scan.res.call_buckets.reduce((n, b) => n + Number(b.count ?? 0), 0);
  }
  return calls;
}
