import { RequestValidationError } from '../../errors/app-error.js';
import type { AgentField, AgentFilter, AgentSpanStore, CustomSource } from '../../store/agent-types.js';
import { groupValue } from './agent-groups.js';

/** Per-group distributions of custom attributes (docs/spec/agents.md §4.2 "Distributions"). */

type Json = Record<string, unknown>;
const unprocessable = (msg: string) => new RequestValidationError([{ loc: ['body'], msg, type: 'value_error' }]);
const TYPES: Record<CustomSource, string> = {
  custom_attrs_string: 'string',
  custom_attrs_int: 'int',
  custom_attrs_float: 'float',
  custom_attrs_bool: 'bool',
};

export interface DistributionSpec {
  alias: string;
  source: CustomSource;
  key: string;
  bins: number;
  top_n: number;
}

/** §4.2 body rules (422) of `group_distributions`. */
export function distributionSpecs(raw: Json[], groupCount: number): DistributionSpec[] {
  if (raw.length > 0 && groupCount !== 1) throw unprocessable('group_distributions need exactly one group_by ref');
  const specs = raw.map((d) => {
    const value = (d.value ?? {}) as { source?: string; key?: string };
    if (value.source === undefined || !(value.source in TYPES))
      throw unprocessable('A distribution needs a custom_attrs_* value');
    const alias = String(d.alias ?? '');
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(alias)) throw unprocessable(`Invalid distribution alias ${alias}`);
    const bins = d.bins === undefined ? 12 : Number(d.bins);
    const topN = d.top_n === undefined ? 5 : Number(d.top_n);
    if (!Number.isInteger(bins) || bins < 1 || bins > 50) throw unprocessable('bins must be 1..50');
    if (!Number.isInteger(topN) || topN < 1 || topN > 20) throw unprocessable('top_n must be 1..20');
    return { alias, source: value.source as CustomSource, key: String(value.key ?? ''), bins, top_n: topN };
  });
  if (new Set(specs.map((s) => s.alias)).size !== specs.length) throw unprocessable('Duplicate distribution aliases');
  return specs;
}

function histogram(values: number[], bins: number): Json[] {
  if (values.length === 0) return [];
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (min === max) return [{ index: 0, min, max, count: values.length }];
  const width = (max - min) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - min) / width))]! += 1;
  return counts.map((count, i) => ({
    index: i,
    min: min + i * width,
    max: i === bins - 1 ? max : min + (i + 1) * width,
    count,
  }));
}

function topValues(values: string[], topN: number): { values: Json[]; listed: number } {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const sorted = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, topN);
  return {
    values: sorted.map(([value, count]) => ({ value: value.slice(0, 256), count })),
    listed: sorted.reduce((n, [, c]) => n + c, 0),
  };
}

/** The distributions of each returned group, keyed by the group's JSON key. */
export async function groupDistributions(
  store: AgentSpanStore,
  base: { projectId: string; filter: AgentFilter | null; startedAfter: number | null; startedBefore: number | null },
  group: AgentField,
  specs: DistributionSpec[],
): Promise<Map<string, Json>> {
  const fields: AgentField[] = specs.map((s) => ({ kind: 'custom', source: s.source, key: s.key }));
  const rows = await store.statValues(base, [group], fields);
  const byGroup = new Map<string, Array<Record<string, unknown>>>();
  for (const r of rows) {
    const key = JSON.stringify(groupValue(group, r.group_0));
    byGroup.set(key, [...(byGroup.get(key) ?? []), r]);
  }
  const out = new Map<string, Json>();
  for (const [key, members] of byGroup) {
    const item: Json = {};
    specs.forEach((s, i) => {
      const present = members.map((m) => m[`value_${i}`]).filter((v) => v !== null && v !== undefined);
      const numeric = s.source === 'custom_attrs_int' || s.source === 'custom_attrs_float';
      const texts = present.map((v) =>
        s.source === 'custom_attrs_bool' ? (Number(v) === 1 ? 'true' : 'false') : String(v),
      );
      const top = numeric ? { values: [], listed: 0 } : topValues(texts, s.top_n);
      item[s.alias] = {
        alias: s.alias,
        source: s.source,
        key: s.key,
        value_type: TYPES[s.source],
        total_count: members.length,
        present_count: present.length,
        missing_count: members.length - present.length,
        other_count: numeric ? 0 : present.length - top.listed,
        bins: numeric ? histogram(present.map(Number), s.bins) : [],
        values: top.values,
      };
    });
    out.set(key, item);
  }
  return out;
}
