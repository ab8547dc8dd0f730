import { percentile } from '../../domain/metric-stats.js';
import { bucketIndex, bucketStarts, canonicalTimeZone } from '../../domain/time-zone.js';
import { formatMicros } from '../../domain/time.js';
import { InvalidRequestError, RequestValidationError } from '../../errors/app-error.js';
import type * as S from '../../schemas/agents.js';
import type { AgentField, AgentFilter, AgentSpanStore, CustomSource } from '../../store/agent-types.js';
import { resolveGranularity } from '../call-stats-service.js';
import { resolveField } from './agent-fields.js';

/**
 * Time-bucketed span stats of docs/spec/agents.md §6.1, ungrouped and grouped. Not served yet
 * (400): numeric buckets (§6.2), group filters and signal filters. The values of the range are
 * read once and aggregated here.
 */

type Json = Record<string, unknown>;
const DAY_US = 86_400_000_000;
const ALLOWED: Record<string, string[]> = {
  number: ['sum', 'avg', 'min', 'max', 'count', 'count_distinct'],
  boolean: ['count', 'count_distinct', 'count_true', 'count_false'],
  string: ['count', 'count_distinct'],
  datetime: ['min', 'max', 'count', 'count_distinct'],
};
const DERIVED_TYPE: Record<string, string> = {
  duration_ms: 'number',
  total_tokens: 'number',
  is_error: 'boolean',
  is_invocation: 'boolean',
};
const unprocessable = (msg: string) => new RequestValidationError([{ loc: ['body'], msg, type: 'value_error' }]);

function metricField(m: S.AgentSpanStatsReq['metrics'] extends Array<infer T> | undefined ? T : never): AgentField {
  const source = m.value.source ?? 'field';
  if (source === 'derived') {
    const type = DERIVED_TYPE[m.value.key];
    if (type === undefined) throw unprocessable(`Unknown derived value ${m.value.key}`);
    if (type !== m.value_type) throw unprocessable(`${m.value.key} is a ${type} value, not ${m.value_type}`);
    return { kind: 'derived', key: m.value.key as 'duration_ms' };
  }
  if (source === 'field' || source === 'column') {
    const field = resolveField(m.value.key);
    if (field.kind !== 'column') throw new InvalidRequestError(`${m.value.key} is not aggregatable`);
    if (field.type !== m.value_type) throw new InvalidRequestError(`${m.value.key} is a ${field.type} value`);
    return field;
  }
  return { kind: 'custom', source: source as CustomSource, key: m.value.key };
}

/** `p95`, `p99_9` (§6.1). */
const percentileName = (p: number): string => `p${String(p).replace('.', '_')}`;

function aggregate(agg: string, values: unknown[]): unknown {
  const present = values.filter((v) => v !== null && v !== undefined);
  const nums = present.map(Number);
  switch (agg) {
    case 'sum':
      return nums.reduce((a, b) => a + b, 0);
    case 'avg':
      return nums.length === 0 ? null : nums.reduce((a, b) => a + b, 0) / nums.length;
    case 'min':
      return nums.length === 0 ? null : Math.min(...nums);
    case 'max':
      return nums.length === 0 ? null : Math.max(...nums);
    case 'count':
      return present.length;
    case 'count_distinct':
      return new Set(present.map(String)).size;
    case 'count_true':
      return nums.filter((v) => v === 1).length;
    default:
      return nums.filter((v) => v === 0).length;
  }
}

function valueRef(ref: { source?: string; key: string }): AgentField {
  const source = ref.source ?? 'field';
  if (source === 'derived') {
    if (DERIVED_TYPE[ref.key] !== 'number') throw unprocessable(`${ref.key} is not a number value`);
    return { kind: 'derived', key: ref.key as 'duration_ms' };
  }
  if (source === 'field' || source === 'column') {
    const field = resolveField(ref.key);
    if (field.kind !== 'column' || field.type !== 'number') throw new InvalidRequestError(`${ref.key} is not a number`);
    return field;
  }
  if (source !== 'custom_attrs_int' && source !== 'custom_attrs_float')
    throw unprocessable('A bucket value must be a number');
  return { kind: 'custom', source, key: ref.key };
}

interface NumericSpec {
  bins?: number;
  min?: number | null;
  max?: number | null;
  value?: { source?: string; key: string };
  group_by?: Array<{ source?: string; key: string }>;
  measure?: { aggregation?: string; value?: { source?: string; key: string } | null; filter?: unknown };
}

/** One value per span (`value`) or per group (`group_by` + `measure`; our limitation: no measure `filter`). */
async function bucketValues(
  store: AgentSpanStore,
  req: S.AgentSpanStatsReq,
  range: { start: number; end: number; filter: AgentFilter | null },
  spec: NumericSpec,
): Promise<number[]> {
  if ((spec.value === undefined) === (spec.group_by === undefined))
    throw unprocessable('Give exactly one of value or group_by');
  if ((spec.group_by === undefined) !== (spec.measure === undefined))
    throw unprocessable('group_by and measure go together');
  if (spec.group_by !== undefined && (req.metrics ?? []).length > 0)
    throw unprocessable('A grouped numeric bucket takes no metrics');
  if (spec.measure?.filter != null)
    throw new InvalidRequestError('A bucket measure with a filter is not supported yet');
  const groupFields: AgentField[] = (spec.group_by ?? []).map((g) =>
    (g.source ?? 'field') === 'field' || g.source === 'column'
      ? resolveField(g.key)
      : { kind: 'custom', source: g.source as CustomSource, key: g.key },
  );
  const measured = spec.measure?.value == null ? null : valueRef(spec.measure.value);
  const fields = spec.value !== undefined ? [valueRef(spec.value)] : measured === null ? [] : [measured];
  const rows = await store.statValues(
    { projectId: req.project_id, filter: range.filter, startedAfter: range.start, startedBefore: range.end },
    groupFields,
    fields,
  );
  const present = (v: unknown) => v !== null && v !== undefined;
  if (spec.value !== undefined)
    return rows
      .map((r) => r.value_0)
      .filter(present)
      .map(Number);
  const byGroup = new Map<string, unknown[]>();
  for (const r of rows) {
    const key = JSON.stringify(groupFields.map((_, i) => r[`group_${i}`] ?? null));
    byGroup.set(key, [...(byGroup.get(key) ?? []), measured === null ? 1 : r.value_0]);
  }
  const agg = spec.measure!.aggregation ?? 'count';
  return [...byGroup.values()]
    .map((list) => aggregate(agg, list))
    .filter(present)
    .map(Number);
}

/** §6.2 numeric buckets: equal-width bins over [min, max] counting the values. */
async function numericStats(
  store: AgentSpanStore,
  req: S.AgentSpanStatsReq,
  start: number,
  end: number,
  filter: AgentFilter | null,
  raw: Json,
): Promise<Json> {
  const spec = raw as NumericSpec;
  const bins = spec.bins === undefined ? 24 : Number(spec.bins);
  if (!Number.isInteger(bins) || bins < 1 || bins > 200) throw unprocessable('bins must be 1..200');
  if ((req.group_by ?? []).length > 0) throw unprocessable('A numeric bucket cannot be combined with group_by');
  if (end < start) throw unprocessable('end must not be before start');
  if (end - start > 31 * DAY_US) throw unprocessable('A numeric bucket range may span at most 31 days');
  const values = await bucketValues(store, req, { start, end, filter }, spec);
  const min = spec.min == null ? (values.length > 0 ? Math.min(...values) : null) : Number(spec.min);
  const max = spec.max == null ? (values.length > 0 ? Math.max(...values) : null) : Number(spec.max);
  if (min !== null && max !== null && max < min) throw unprocessable('max must be >= min');
  const rows: Json[] = [];
  if (min !== null && max !== null && values.length > 0) {
    const count = max === min ? 1 : bins;
    const width = (max - min) / bins;
    const counts = new Array<number>(count).fill(0);
    for (const v of values) {
      if (v < min || v > max) continue;
      counts[max === min ? 0 : Math.min(bins - 1, Math.floor((v - min) / width))]! += 1;
    }
    counts.forEach((c, i) =>
      rows.push({
        bucket_index: i,
        bucket_min: max === min ? min : min + i * width,
        bucket_max: max === min || i === count - 1 ? max : min + (i + 1) * width,
        count: c,
      }),
    );
  }
  const bucket = (name: string) => ({ name, role: 'bucket', value_type: 'number' });
  const columns = [bucket('bucket_index'), bucket('bucket_min'), bucket('bucket_max')];
  columns.push({ name: 'count', role: 'metric', value_type: 'number', metric: 'rows', aggregation: 'count' } as never);
  const timezone = req.timezone ?? 'UTC';
  return {
    start: formatMicros(start),
    end: formatMicros(end),
    granularity: null,
    timezone,
    bucket_type: 'number',
    columns,
    rows,
  };
}

export async function spanStats(
  store: AgentSpanStore,
  req: S.AgentSpanStatsReq,
  start: number,
  end: number,
  filter: AgentFilter | null,
): Promise<Json> {
  if ((req.group_filters ?? []).length > 0 || req.signal_filters != null)
    throw new InvalidRequestError('group_filters and signal_filters are not supported yet');
  if (req.bucket_by != null && req.bucket_by.type === 'number')
    return numericStats(store, req, start, end, filter, req.bucket_by);
  const metrics = req.metrics ?? [];
  if (metrics.length === 0) throw unprocessable('At least one metric is required');
  if (end < start) throw unprocessable('end must not be before start');
  if (new Set(metrics.map((m) => m.alias)).size !== metrics.length) throw unprocessable('Duplicate metric aliases');
  const groupRefs = req.group_by ?? [];
  if (groupRefs.length > 0 && end - start > 31 * DAY_US)
    throw unprocessable('A grouped range may span at most 31 days');
  const zone = canonicalTimeZone(req.timezone ?? 'UTC');
  if (zone === null) throw new InvalidRequestError(`Unknown timezone ${req.timezone}`);
  const specs = metrics.map((m) => {
    const aggs = m.aggregations ?? [];
    const pcts = m.percentiles ?? [];
    if (pcts.length > 0 && m.value_type !== 'number') throw unprocessable('percentiles need a number metric');
    for (const a of aggs)
      if (!ALLOWED[m.value_type]!.includes(a)) throw unprocessable(`${a} does not apply to ${m.value_type} values`);
    const resolved = aggs.length === 0 && pcts.length === 0 ? [m.value_type === 'number' ? 'sum' : 'count'] : aggs;
    return { alias: m.alias, type: m.value_type, field: metricField(m), aggs: resolved, pcts };
  });
  const groups = groupRefs.map((g) => {
    const source = g.source ?? 'field';
    const field: AgentField =
      source === 'field' || source === 'column'
        ? resolveField(g.key)
        : { kind: 'custom', source: source as CustomSource, key: g.key };
    const alias = g.alias ?? (field.kind === 'column' ? field.column : g.key);
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(alias)) throw new InvalidRequestError(`Invalid group alias ${alias}`);
    return { alias, field };
  });
  const granularity = resolveGranularity((end - start) / 1_000_000, req.granularity);
  const starts = bucketStarts(start, end, granularity, zone);
  const rows = await store.statValues(
    { projectId: req.project_id, filter, startedAfter: start, startedBefore: end },
    groups.map((g) => g.field),
    specs.map((s) => s.field),
  );
  const keyOf = (r: Json) => JSON.stringify(groups.map((_, i) => r[`group_${i}`] ?? null));
  let top: string[] = [''];
  if (groups.length > 0) {
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(keyOf(r), (counts.get(keyOf(r)) ?? 0) + 1);
    const b = Math.ceil((end - start) / 1_000_000 / granularity) + 1;
    const limit = Math.min(req.group_limit ?? 50, Math.max(1, Math.floor(10_000 / b)));
    top = [...counts.entries()]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, limit)
      .map(([k]) => k)
      .sort();
  }
  const cells = new Map<string, Json[]>();
  for (const r of rows) {
    const i = bucketIndex(starts, Number(r.started_at));
    if (i < 0) continue;
    const key = `${i}\n${groups.length > 0 ? keyOf(r) : ''}`;
    cells.set(key, [...(cells.get(key) ?? []), r]);
  }
  const out: Json[] = [];
  starts.forEach((at, i) => {
    for (const group of top) {
      if (groups.length > 0 && !top.includes(group)) continue;
      const row: Json = { timestamp: formatMicros(at) };
      const keys = groups.length > 0 ? (JSON.parse(group) as unknown[]) : [];
      groups.forEach((g, j) => (row[g.alias] = keys[j]));
      const members = cells.get(`${i}\n${group}`) ?? [];
      specs.forEach((s, k) => {
        const values = members.map((m) => m[`value_${k}`]);
        for (const a of s.aggs) {
          const v = aggregate(a, values);
          row[`${a}_${s.alias}`] =
            s.type === 'datetime' && (a === 'min' || a === 'max') && v !== null ? formatMicros(Number(v)) : v;
        }
        const sorted = values
          .filter((v) => v !== null && v !== undefined)
          .map(Number)
          .sort((a, b) => a - b);
        for (const p of s.pcts) row[`${percentileName(p)}_${s.alias}`] = percentile(sorted, p);
      });
      out.push(row);
    }
  });
  const columns: Json[] = [{ name: 'timestamp', role: 'time', value_type: 'datetime' }];
  for (const g of groups)
    columns.push({ name: g.alias, role: 'group', value_type: g.field.kind === 'column' ? g.field.type : 'string' });
  for (const s of specs) {
    for (const a of s.aggs) {
      const type = s.type === 'datetime' && (a === 'min' || a === 'max') ? 'datetime' : 'number';
      columns.push({ name: `${a}_${s.alias}`, role: 'metric', value_type: type, metric: s.alias, aggregation: a });
    }
    for (const p of s.pcts)
      columns.push({
        name: `${percentileName(p)}_${s.alias}`,
        role: 'metric',
        value_type: 'number',
        metric: s.alias,
        aggregation: percentileName(p),
      });
  }
  return {
    start: formatMicros(start),
    end: formatMicros(end),
    granularity,
    timezone: zone,
    bucket_type: 'time',
    columns,
    rows: out,
  };
}
