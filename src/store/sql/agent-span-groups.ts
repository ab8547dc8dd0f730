import type { AgentGroupQuery, AgentMeasure } from '../agent-types.js';
import { AgentFilterCompiler, valueSql } from './agent-span-filter.js';
import type { SqlDialect } from './core/sql-dialect.js';
import { frag, raw, type Fragment } from './core/sql-tag.js';

/**
 * The grouped spans query of docs/spec/agents.md §4.2 as one statement over the attributed rows:
 * group keys `group_<i>`, the reserved aggregates, measures `m_<i>`, HAVING for group filters.
 */

/** How an adapter aggregates the distinct values of a column into one JSON array. */
export type DistinctList = (expr: string) => string;

export const SQLITE_DISTINCT_LIST: DistinctList = (expr) => `json_group_array(DISTINCT ${expr})`;
export const POSTGRES_DISTINCT_LIST: DistinctList = (expr) => `to_json(array_agg(DISTINCT ${expr}))`;

const RESERVED_SQL: Record<string, string> = {
  span_count: 'COUNT(*)',
  invocation_count: "SUM(CASE WHEN s.operation_name = 'invoke_agent' THEN 1 ELSE 0 END)",
  conversation_count: 'COUNT(DISTINCT s.attr_conversation_id)',
  total_input_tokens: 'SUM(s.input_tokens)',
  total_cache_creation_input_tokens: 'SUM(s.cache_creation_input_tokens)',
  total_cache_read_input_tokens: 'SUM(s.cache_read_input_tokens)',
  total_output_tokens: 'SUM(s.output_tokens)',
  total_reasoning_tokens: 'SUM(s.reasoning_tokens)',
  total_duration_ms: 'SUM(CASE WHEN s.ended_at > s.started_at THEN (s.ended_at - s.started_at) / 1000 ELSE 0 END)',
  error_count: "SUM(CASE WHEN s.status_code = 'ERROR' THEN 1 ELSE 0 END)",
  first_seen: 'MIN(s.started_at)',
  last_seen: 'MAX(s.started_at)',
};
export const RESERVED_SCALARS = new Set(Object.keys(RESERVED_SQL));

const LISTS: Record<string, string> = {
  agent_names: 's.attr_agent_name',
  agent_versions: 's.attr_agent_version',
  provider_names: 's.provider_name',
  request_models: 's.request_model',
  conversation_names: 's.conversation_name',
};

function measureSql(m: AgentMeasure, d: SqlDialect): Fragment {
  const filter = m.filter === null ? frag`1 = 1` : new AgentFilterCompiler(d, true).compile(m.filter);
  if (m.value === null) return frag`SUM(CASE WHEN ${filter} THEN 1 ELSE 0 END)`;
  const value = valueSql(m.value, true).sql;
  const when = frag`CASE WHEN ${filter} THEN ${value} END`;
  switch (m.aggregation) {
    case 'count':
      return frag`COUNT(${when})`;
    case 'count_distinct':
      return frag`COUNT(DISTINCT ${when})`;
    case 'count_true':
      return frag`SUM(CASE WHEN ${filter} AND ${value} = 1 THEN 1 ELSE 0 END)`;
    case 'count_false':
      return frag`SUM(CASE WHEN ${filter} AND ${value} = 0 THEN 1 ELSE 0 END)`;
    default:
      return frag`${raw(m.aggregation.toUpperCase())}(${when})`;
  }
}

const join = (parts: Fragment[], sep = ', '): Fragment =>
  parts.length === 0 ? frag`` : parts.slice(1).reduce((acc, p) => frag`${acc}${raw(sep)}${p}`, parts[0]!);

/** The grouped statement (without paging) and the ORDER BY of its rows. */
export function groupedSql(
  q: AgentGroupQuery,
  where: Fragment,
  d: SqlDialect,
  distinct: DistinctList,
): { select: Fragment; order: string } {
  const keys = q.groupBy.map((g, i) => frag`${valueSql(g.field, true).sql} AS group_${raw(String(i))}`);
  const reserved = Object.entries(RESERVED_SQL).map(([name, sql]) => frag`${raw(sql)} AS ${raw(name)}`);
  const lists = Object.entries(LISTS).map(([name, expr]) => frag`${raw(distinct(expr))} AS ${raw(name)}`);
  const measures = q.measures.map((m, i) => frag`${measureSql(m, d)} AS m_${raw(String(i))}`);
  const groupCols = q.groupBy.map((_, i) => `group_${i}`).join(', ');
  const having = q.having.flatMap((h) => {
    const m = measureSql(q.measures[h.measure]!, d);
    const out: Fragment[] = [];
    if (h.min !== null) out.push(frag`${m} >= ${h.min}`);
    if (h.max !== null) out.push(frag`${m} <= ${h.max}`);
    return out;
  });
  const havingSql = having.length > 0 ? frag` HAVING ${join(having, ' AND ')}` : frag``;
  const select = frag`SELECT ${join([...keys.map((k) => frag`${k}`), ...reserved, ...lists, ...measures])}
    FROM agent_spans s WHERE ${where} GROUP BY ${raw(groupCols)}${havingSql}`;
  const column = (name: string): string => {
    const group = q.groupBy.findIndex((g) => g.alias === name);
    if (group >= 0) return `group_${group}`;
    const measure = q.measures.findIndex((m) => m.alias === name);
    return measure >= 0 ? `m_${measure}` : name;
  };
  const sort = q.sort.map((k) => `${column(k.name)} ${k.direction === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`);
  const tie = q.groupBy.map((_, i) => `group_${i} ASC NULLS FIRST`);
  return { select, order: [...sort, ...tie].join(', ') };
}
