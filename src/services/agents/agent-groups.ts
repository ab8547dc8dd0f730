import { parseQuery } from '../../domain/query/parse.js';
import { formatMicros, toMicros } from '../../domain/time.js';
import { InvalidRequestError, RequestValidationError } from '../../errors/app-error.js';
import type * as S from '../../schemas/agents.js';
import type {
  AgentAggregation,
  AgentField,
  AgentGroupQuery,
  AgentMeasure,
  AgentSpanRow,
  CustomSource,
} from '../../store/agent-types.js';
import { outputText, userTexts } from './agent-chat-text.js';
import { AGGREGATE_NAMES, resolveField, SPAN_IDENTITY_COLUMNS } from './agent-fields.js';

/** Grouped span queries of docs/spec/agents.md §4.2: names resolved and checked, rows shaped. */

type Json = Record<string, unknown>;
const IDENT = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const GROUPABLE = new Set<string>([...SPAN_IDENTITY_COLUMNS, 'agent_id', 'tool_call_id', 'wb_user_id']);
const RESERVED_SORT = new Set<string>(AGGREGATE_NAMES);
const ALLOWED: Record<string, AgentAggregation[]> = {
  number: ['sum', 'avg', 'min', 'max', 'count', 'count_distinct'],
  boolean: ['count', 'count_distinct', 'count_true', 'count_false'],
  string: ['count', 'count_distinct'],
  datetime: ['min', 'max', 'count', 'count_distinct'],
};
const DERIVED = ['duration_ms', 'total_tokens', 'is_error', 'is_invocation'] as const;
const COST_DERIVED = ['total_cost_usd', 'input_cost_usd', 'output_cost_usd'];

const unprocessable = (msg: string) => new RequestValidationError([{ loc: ['body'], msg, type: 'value_error' }]);

interface GroupRef {
  source?: string;
  key: string;
  alias?: string | null;
}

function groupField(ref: GroupRef): { alias: string; field: AgentField } {
  const source = ref.source ?? 'field';
  let field: AgentField;
  let name: string;
  if (source === 'field' || source === 'column') {
    field = resolveField(ref.key);
    if (field.kind !== 'column' || !GROUPABLE.has(field.column))
      throw new InvalidRequestError(`Cannot group by ${ref.key}`);
    name = field.column;
  } else {
    field = { kind: 'custom', source: source as CustomSource, key: ref.key };
    name = ref.key;
  }
  const alias = ref.alias ?? name;
  if (!IDENT.test(alias)) throw new InvalidRequestError(`Invalid group alias ${JSON.stringify(alias)}: give an alias`);
  return { alias, field };
}

function fieldType(field: AgentField): string {
  if (field.kind === 'column') return field.type;
  if (field.kind === 'derived') return field.key === 'is_error' || field.key === 'is_invocation' ? 'boolean' : 'number';
  const source = field.source ?? 'custom_attrs_string';
  return source === 'custom_attrs_string' ? 'string' : source === 'custom_attrs_bool' ? 'boolean' : 'number';
}

function valueField(ref: { source?: string; key: string }): AgentField {
  const source = ref.source ?? 'field';
  if (source === 'derived') {
    if (COST_DERIVED.includes(ref.key)) throw new InvalidRequestError('Cost measures are not supported yet');
    if (!(DERIVED as readonly string[]).includes(ref.key)) throw unprocessable(`Unknown derived value ${ref.key}`);
    return { kind: 'derived', key: ref.key as (typeof DERIVED)[number] };
  }
  if (source === 'field' || source === 'column') {
    const field = resolveField(ref.key);
    if (field.kind !== 'column') throw new InvalidRequestError(`${ref.key} is not aggregatable`);
    return field;
  }
  return { kind: 'custom', source: source as CustomSource, key: ref.key };
}

function measure(raw: Json): AgentMeasure & { type: string } {
  const alias = String(raw.alias ?? '');
  const aggregation = String(raw.aggregation ?? '') as AgentAggregation;
  if (!Object.values(ALLOWED).some((list) => list.includes(aggregation)))
    throw unprocessable(`Unknown aggregation ${aggregation}`);
  const valueRef = raw.value as { source?: string; key: string } | null | undefined;
  if ((valueRef === null || valueRef === undefined) && aggregation !== 'count')
    throw unprocessable(`Measure ${alias} needs a value`);
  const declared = raw.value_type as string | null | undefined;
  if (declared != null && !(ALLOWED[declared] ?? []).includes(aggregation))
    throw unprocessable(`${aggregation} does not apply to ${declared} values`);
  const value = valueRef == null ? null : valueField(valueRef);
  const type = value === null ? 'number' : fieldType(value);
  if (value !== null && !(ALLOWED[type] ?? []).includes(aggregation))
    throw new InvalidRequestError(`${aggregation} does not apply to ${type} values`);
  const filter = raw.filter == null ? null : parseQuery(raw.filter as { $expr: unknown }, resolveField);
  return { alias, aggregation, value, filter, type };
}

const sameGroup = (a: GroupRef[], b: GroupRef[]) =>
  a.length === b.length &&
  a.every((r, i) => (r.source ?? 'field') === (b[i]!.source ?? 'field') && r.key === b[i]!.key);

/** The store query of a grouped request (the base filter fields already resolved by the caller). */
export function groupQuery(
  req: S.AgentSpansQueryReq,
  base: Omit<AgentGroupQuery, 'groupBy' | 'measures' | 'having' | 'sort'>,
) {
  if (req.signal_filters != null && Object.values(req.signal_filters).some((v) => Array.isArray(v) && v.length > 0))
    throw new InvalidRequestError('signal_filters are not supported yet');
  const refs = req.group_by as GroupRef[];
  const groupBy = refs.map(groupField);
  if (new Set(groupBy.map((g) => g.alias)).size !== groupBy.length)
    throw new InvalidRequestError('Duplicate group aliases');
  const measures = (req.measures ?? []).map((m) => measure(m));
  for (const m of measures)
    if (groupBy.some((g) => g.alias === m.alias)) throw unprocessable(`Measure alias ${m.alias} equals a group alias`);
  const having: AgentGroupQuery['having'] = [];
  const hidden: AgentMeasure[] = [];
  for (const f of (req.group_filters ?? []) as Json[]) {
    if (f.group_by != null && !sameGroup(f.group_by as GroupRef[], refs))
      throw new InvalidRequestError("A group filter's group_by must equal the query's");
    const m = measure((f.measure ?? {}) as Json);
    const datetime = m.type === 'datetime' && (m.aggregation === 'min' || m.aggregation === 'max');
    const bound = (v: unknown): number | null => {
      if (v === null || v === undefined) return null;
      if (typeof v === 'string') {
        if (!datetime) throw new InvalidRequestError('A date-time bound needs a date-time measure');
        const micros = toMicros(v);
        if (micros === null) throw unprocessable('Invalid date-time bound');
        return micros;
      }
      if (datetime) throw new InvalidRequestError('A date-time measure needs date-time bounds');
      return Number(v);
    };
    const [min, max] = [bound(f.min), bound(f.max)];
    if (min === null && max === null) throw unprocessable('A group filter needs min or max');
    if (min !== null && max !== null && max < min) throw unprocessable('max must be >= min');
    having.push({ measure: measures.length + hidden.length, min, max });
    hidden.push({ ...m, alias: `_filter_${hidden.length}` });
  }
  const names = new Set([...RESERVED_SORT, ...groupBy.map((g) => g.alias), ...measures.map((m) => m.alias)]);
  const sort = (req.sort_by ?? []).map((s) => {
    if (!names.has(s.field)) throw new InvalidRequestError(`Invalid sort field: ${s.field}`);
    return { name: s.field, direction: s.direction ?? ('desc' as const) };
  });
  const fallback = measures.length > 0 ? measures[0]!.alias : 'last_seen';
  const query: AgentGroupQuery = {
    ...base,
    groupBy,
    measures: [...measures, ...hidden],
    having,
    sort: sort.length > 0 ? sort : [{ name: fallback, direction: 'desc' }],
  };
  return {
    query,
    measures,
    byConversation:
      refs.length === 1 &&
      groupBy[0]!.field.kind === 'column' &&
      (groupBy[0]!.field as { column: string }).column === 'conversation_id' &&
      ['field', 'column'].includes(refs[0]!.source ?? 'field'),
  };
}

/** A group key as JSON: booleans and numbers as such (the stores hand some back as text). */
export function groupValue(field: AgentField, v: unknown): unknown {
  const type = fieldType(field);
  if (v === null || v === undefined) return null;
  return type === 'boolean' ? Number(v) === 1 : type === 'number' ? Number(v) : v;
}

const num = (v: unknown): number => Number(v ?? 0);
const list = (v: unknown): string[] => {
  const parsed = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  return Array.isArray(parsed)
    ? [...new Set(parsed.filter((x): x is string => typeof x === 'string' && x !== ''))].sort()
    : [];
};

/** One grouped row as §4.2 returns it. */
export function groupRow(row: Json, q: AgentGroupQuery, measures: Array<AgentMeasure & { type: string }>): Json {
  const keys: Json = {};
  q.groupBy.forEach((g, i) => (keys[g.alias] = groupValue(g.field, row[`group_${i}`])));
  const metrics: Json = {};
  measures.forEach((m, i) => {
    const v = row[`m_${i}`];
    if (v === null || v === undefined) metrics[m.alias] = m.aggregation.startsWith('count') ? 0 : null;
    else
      metrics[m.alias] =
        m.type === 'datetime' && (m.aggregation === 'min' || m.aggregation === 'max')
          ? formatMicros(Number(v))
          : Number(v);
  });
  return {
    group_keys: keys,
    span_count: num(row.span_count),
    invocation_count: num(row.invocation_count),
    conversation_count: num(row.conversation_count),
    total_input_tokens: num(row.total_input_tokens),
    total_cache_creation_input_tokens: num(row.total_cache_creation_input_tokens),
    total_cache_read_input_tokens: num(row.total_cache_read_input_tokens),
    total_output_tokens: num(row.total_output_tokens),
    total_reasoning_tokens: num(row.total_reasoning_tokens),
    total_duration_ms: Math.trunc(num(row.total_duration_ms)),
    error_count: num(row.error_count),
    agent_names: list(row.agent_names),
    agent_versions: list(row.agent_versions),
    provider_names: list(row.provider_names),
    request_models: list(row.request_models),
    conversation_names: list(row.conversation_names),
    first_seen: formatMicros(num(row.first_seen)),
    last_seen: formatMicros(num(row.last_seen)),
    metrics,
    distributions: {},
    first_message: null,
    last_message: null,
    total_cost_usd: null,
    total_input_cost_usd: null,
    total_output_cost_usd: null,
  };
}

/** §4.2 preview text: leading JSON values stripped, trimmed, 280 characters then `…`; empty → null. */
export function previewText(text: string): string | null {
  let t = text.trim();
  while (t.startsWith('[') || t.startsWith('{')) {
    const end = jsonEnd(t);
    if (end < 0) break;
    const rest = t.slice(end).trimStart();
    if (rest.startsWith(',')) break;
    t = rest;
  }
  t = t.trim();
  if (t === '') return null;
  const points = [...t];
  return points.length > 280 ? `${points.slice(0, 280).join('').trimEnd()}…` : t;
}

/** The end of one complete JSON value at the start of `t`, or -1 when it is malformed. */
function jsonEnd(t: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        try {
          JSON.parse(t.slice(0, i + 1));
          return i + 1;
        } catch {
          return -1;
        }
      }
    }
  }
  return -1;
}

/** First user prompt and last answer per conversation, from the raw spans of those conversations. */
export function conversationPreviews(spans: AgentSpanRow[]): Map<string, { first: Json | null; last: Json | null }> {
  const out = new Map<string, { first: Json | null; last: Json | null }>();
  const byConversation = new Map<string, AgentSpanRow[]>();
  for (const s of spans) byConversation.set(s.conversation_id, [...(byConversation.get(s.conversation_id) ?? []), s]);
  for (const [id, list] of byConversation) {
    const firstSpan = list
      .filter((s) => s.details.input_messages.length > 0)
      .sort((a, b) => a.started_at - b.started_at || (a.span_id < b.span_id ? -1 : 1))[0];
    const lastSpan = list
      .filter((s) => s.details.output_messages.length > 0)
      .sort((a, b) => (b.ended_at ?? 0) - (a.ended_at ?? 0) || (a.span_id < b.span_id ? 1 : -1))[0];
    const firstText =
      firstSpan === undefined ? null : previewText(userTexts(firstSpan.details.input_messages)[0] ?? '');
    const lastText = lastSpan === undefined ? null : previewText(outputText(lastSpan.details.output_messages));
    out.set(id, {
      first: firstText === null ? null : { role: 'user_message', text: firstText },
      last: lastText === null ? null : { role: 'assistant_message', text: lastText },
    });
  }
  return out;
}
