import { parseQuery } from '../../domain/query/parse.js';
import { formatMicros, parseIsoMicros, toMicros } from '../../domain/time.js';
import { InvalidRequestError, RequestValidationError } from '../../errors/app-error.js';
import type * as S from '../../schemas/agents.js';
import type { AgentFilter, AgentSpanRecord, CustomSource } from '../../store/agent-types.js';
import type { TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import type { PriceLookup } from '../price-lookup.js';
import type { ProjectAccess } from '../project-access.js';
import { conversationChat, traceChat } from './agent-chat.js';
import { AGGREGATE_NAMES, resolveField, resolveSort } from './agent-fields.js';
import { durationMs, spanRow } from './agent-rows.js';
import { conversationPreviews, groupQuery, groupRow } from './agent-groups.js';
import { spanStats } from './agent-stats.js';
import { distributionSpecs, groupDistributions } from './agent-distributions.js';
import { cacheFindings, conversationMarkers } from './agent-markers.js';
import { emptySpan } from './agent-start.js';

/** The read routes and the live start of the Agents API (docs/spec/agents.md §2.7, §4–§11). */

type Json = Record<string, unknown>;

const RESERVED = new Set<string>([
  ...AGGREGATE_NAMES,
  'agent_names',
  'agent_versions',
  'provider_names',
  'request_models',
  'conversation_names',
  'total_cost_usd',
  'total_input_cost_usd',
  'total_output_cost_usd',
]);

const invalid = (msg: string, loc: string[] = ['body']): RequestValidationError =>
  new RequestValidationError([{ loc, msg, type: 'value_error' }]);

/** A request date-time as microseconds (§0: naive values are UTC). */
function micros(value: string | number | null | undefined, field: string): number | null {
  if (value === null || value === undefined) return null;
  const out = toMicros(value);
  if (out === null) throw invalid(`Invalid date-time in ${field}`, ['body', field]);
  return out;
}

function filterOf(query: { $expr: unknown } | null | undefined): AgentFilter | null {
  return query === null || query === undefined ? null : parseQuery(query, resolveField);
}

/** §4 body-model rules (422) that do not depend on the data. */
function checkSpansBody(req: S.AgentSpansQueryReq): void {
  const grouped = (req.group_by ?? []).length > 0;
  const measures = (req.measures ?? []) as Array<{ alias?: unknown }>;
  if (!grouped) {
    if (measures.length > 0) throw invalid('measures need group_by');
    if ((req.group_filters ?? []).length > 0) throw invalid('group_filters need group_by');
    if ((req.group_distributions ?? []).length > 0) throw invalid('group_distributions need group_by');
  } else {
    if (req.include_details === true) throw invalid('include_details cannot be combined with group_by');
    if ((req.custom_attr_columns ?? []).length > 0)
      throw invalid('custom_attr_columns cannot be combined with group_by');
  }
  const aliases = new Set<string>();
  for (const m of measures) {
    const alias = String(m.alias ?? '');
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(alias)) throw invalid(`Invalid measure alias ${JSON.stringify(alias)}`);
    if (RESERVED.has(alias)) throw invalid(`Measure alias ${alias} is a reserved name`);
    if (aliases.has(alias)) throw invalid(`Duplicate measure alias ${alias}`);
    aliases.add(alias);
  }
  for (const c of req.custom_attr_columns ?? [])
    if (c.source === undefined || !c.source.startsWith('custom_attrs_'))
      throw invalid('custom_attr_columns need a custom_attrs_* source', ['body', 'custom_attr_columns']);
}

export class AgentService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly prices: PriceLookup,
  ) {}

  /** §4.1 ungrouped, §4.2 grouped (distributions and signal filters not served yet: 400). */
  async spansQuery(caller: Caller, req: S.AgentSpansQueryReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    checkSpansBody(req);
    if ((req.group_by ?? []).length > 0) return this.#grouped(req);
    const custom = (req.custom_attr_columns ?? []).map((c) => ({ source: c.source as CustomSource, key: c.key }));
    const sort = (req.sort_by ?? []).map((s) => ({
      field: resolveSort(s.field, custom),
      direction: s.direction ?? ('desc' as const),
    }));
    const page = await this.store.agentSpans.spans({
      projectId: req.project_id,
      filter: filterOf(req.query),
      startedAfter: micros(req.started_after, 'started_after'),
      startedBefore: micros(req.started_before, 'started_before'),
      sort: sort.length > 0 ? sort : [{ field: resolveField('started_at'), direction: 'desc' }],
      limit: req.limit ?? 100,
      offset: req.offset ?? 0,
    });
    const prices = req.include_costs === true ? await this.prices.forProject(req.project_id) : undefined;
    const options = { details: req.include_details === true, custom, prices };
    return { spans: page.rows.map((r) => spanRow(r, options)), groups: [], total_count: page.total };
  }

  async #grouped(req: S.AgentSpansQueryReq): Promise<Json> {
    const base = {
      projectId: req.project_id,
      filter: filterOf(req.query),
      startedAfter: micros(req.started_after, 'started_after'),
      startedBefore: micros(req.started_before, 'started_before'),
      limit: req.limit ?? 100,
      offset: req.offset ?? 0,
    };
    const { query, measures, byConversation } = groupQuery(req, base);
    const specs = distributionSpecs((req.group_distributions ?? []) as Json[], query.groupBy.length);
    const page = await this.store.agentSpans.groups(query);
    const groups = page.rows.map((r) => groupRow(r, query, measures));
    if (specs.length > 0 && groups.length > 0) {
      const g = query.groupBy[0]!;
      const dists = await groupDistributions(this.store.agentSpans, base, g.field, specs);
      for (const row of groups) row.distributions = dists.get(JSON.stringify((row.group_keys as Json)[g.alias])) ?? {};
    }
    if (byConversation) {
      const alias = query.groupBy[0]!.alias;
      const ids = groups
        .map((g) => (g.group_keys as Json)[alias])
        .filter((v): v is string => typeof v === 'string' && v !== '');
      try {
        const spans = await this.store.agentSpans.conversationPreviewSpans(
          req.project_id,
          ids,
          base.startedAfter,
          base.startedBefore,
        );
        const previews = conversationPreviews(spans);
        for (const g of groups) {
          const p = previews.get(String((g.group_keys as Json)[alias]));
          if (p !== undefined) Object.assign(g, { first_message: p.first, last_message: p.last });
        }
      } catch {
        // §4.2: preview failures never fail the query
      }
    }
    return { spans: [], groups, total_count: page.total };
  }

  /** §6. */
  async spanStats(caller: Caller, req: S.AgentSpanStatsReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const start = micros(req.start, 'start')!;
    const end = micros(req.end, 'end') ?? Date.now() * 1000;
    return spanStats(this.store.agentSpans, req, start, end, filterOf(req.query));
  }

  /** §5. */
  async customAttrsSchema(caller: Caller, req: S.AgentCustomAttrsSchemaReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const limit = req.limit ?? 200;
    const offset = req.offset ?? 0;
    const rows = await this.store.agentSpans.customAttrs({
      projectId: req.project_id,
      filter: filterOf(req.query),
      startedAfter: micros(req.started_after, 'started_after'),
      startedBefore: micros(req.started_before, 'started_before'),
      limit: limit + 1,
      offset,
    });
    const types: Record<CustomSource, string> = {
      custom_attrs_string: 'string',
      custom_attrs_int: 'int',
      custom_attrs_float: 'float',
      custom_attrs_bool: 'bool',
    };
    return {
      attributes: rows.slice(0, limit).map((r) => ({ ...r, value_type: types[r.source] })),
      limit,
      offset,
      has_more: rows.length > limit,
    };
  }

  async #rollup(caller: Caller, projectId: string, agentName: string | null, byVersion: boolean, req: Json) {
    this.access.assertCanRead(caller, projectId);
    const sortBy = (req.sort_by as Array<{ field: string; direction?: 'asc' | 'desc' }> | null | undefined) ?? [];
    const allowed = ['last_seen', 'first_seen', 'invocation_count', 'span_count', 'total_input_tokens', 'error_count'];
    if (!byVersion)
      for (const s of sortBy)
        if (!allowed.includes(s.field)) throw new InvalidRequestError(`Invalid sort field: ${s.field}`);
    const page = await this.store.agentSpans.agents({
      projectId,
      agentName,
      byVersion,
      // §7.2: versions accept sort_by and ignore it, as the reference
      sort: byVersion ? [] : sortBy.map((s) => ({ field: s.field, direction: s.direction ?? 'desc' })),
      limit: Number(req.limit ?? 100),
      offset: Number(req.offset ?? 0),
    });
    const rows = page.rows.map((r) => ({
      project_id: projectId,
      agent_name: r.agent_name,
      ...(byVersion ? { agent_version: r.agent_version } : {}),
      invocation_count: r.invocation_count,
      span_count: r.span_count,
      total_input_tokens: r.total_input_tokens,
      total_output_tokens: r.total_output_tokens,
      total_duration_ms: r.total_duration_ms,
      error_count: r.error_count,
      first_seen: formatMicros(r.first_seen),
      last_seen: formatMicros(r.last_seen),
      total_cost_usd: null,
    }));
    return { rows, total: page.total };
  }

  /** §7.1. */
  async agentsQuery(caller: Caller, req: S.AgentsQueryReq): Promise<Json> {
    const name = req.filters?.agent_name ?? null;
    const { rows, total } = await this.#rollup(caller, req.project_id, name, false, req as Json);
    return { agents: rows, total_count: total };
  }

  /** §7.2. */
  async agentVersionsQuery(caller: Caller, req: S.AgentVersionsQueryReq): Promise<Json> {
    const { rows, total } = await this.#rollup(caller, req.project_id, req.agent_name, true, req as Json);
    return { versions: rows, total_count: total };
  }

  /** §8. */
  async search(caller: Caller, req: S.AgentSearchReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const orNull = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? null : v);
    const roles =
      req.roles === null || req.roles === undefined
        ? null
        : [...new Set(req.roles.flatMap((r) => (r === 'tool' ? ['tool_call', 'tool_result'] : [r])))];
    const hits = await this.store.agentSpans.search({
      projectId: req.project_id,
      text: req.query ?? '',
      traceId: orNull(req.trace_id),
      conversationId: orNull(req.conversation_id),
      agentName: orNull(req.agent_name),
      providerName: orNull(req.provider_name),
      requestModel: orNull(req.request_model),
      roles,
      startedAfter: micros(req.started_after, 'started_after'),
      startedBefore: micros(req.started_before, 'started_before'),
      limit: req.limit ?? 20,
      offset: req.offset ?? 0,
    });
    const truncate = req.truncate_content !== false;
    const groups = new Map<string, Json & { matched_messages: Json[] }>();
    for (const hit of hits) {
      const id = hit.conversation_id === '' ? '__NO_CONVERSATION__' : hit.conversation_id;
      let group = groups.get(id);
      if (group === undefined) {
        group = {
          conversation_id: id,
          conversation_name: hit.conversation_name,
          agent_name: hit.agent_name,
          matched_messages: [],
          last_activity: formatMicros(hit.started_at),
        };
        groups.set(id, group);
      }
      const points = [...hit.content];
      group.matched_messages.push({
        span_id: hit.span_id,
        trace_id: hit.trace_id,
        role: hit.role,
        content_preview: truncate && points.length > 500 ? points.slice(0, 500).join('') : hit.content,
        content_digest: hit.content_digest,
        started_at: formatMicros(hit.started_at),
      });
    }
    const results = [...groups.values()];
    return { results, total_conversations: results.length };
  }

  /** §9.4. */
  async traceChat(caller: Caller, req: S.AgentTraceChatReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const spans = await this.store.agentSpans.traceSpans(req.project_id, req.trace_id);
    const prices = await this.prices.forProject(req.project_id);
    return traceChat(req.trace_id, spans, prices, req.include_model_tool_calls === true);
  }

  /** §9.5. */
  async conversationChat(caller: Caller, req: S.AgentConversationChatReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const limit = req.limit ?? 50;
    const offset = req.offset ?? 0;
    const page = await this.store.agentSpans.conversationTurns(req.project_id, req.conversation_id, limit, offset);
    const turns = [];
    for (const t of [...page.traces].reverse())
      turns.push(await this.store.agentSpans.traceSpans(req.project_id, t.trace_id));
    const prices = await this.prices.forProject(req.project_id);
    return conversationChat(
      req.conversation_id,
      turns,
      page.traces.reverse(),
      page.total,
      limit,
      offset,
      prices,
      req.include_model_tool_calls === true,
    );
  }

  /** §10. */
  async conversationSpans(caller: Caller, req: S.AgentConversationSpansReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const bound = (value: string | null | undefined, field: string): number | null => {
      if (value === null || value === undefined) return null;
      if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(value.trim()))
        throw invalid(`${field} needs a UTC offset (a naive date-time is refused)`, ['body', field]);
      const out = parseIsoMicros(value);
      if (out === null) throw invalid(`Invalid date-time in ${field}`, ['body', field]);
      return out;
    };
    const after = bound(req.started_after, 'started_after');
    const before = bound(req.started_before, 'started_before');
    const conversations = [];
    for (const id of [...new Set(req.conversation_ids ?? [])]) {
      const rows = await this.store.agentSpans.conversationSpans(req.project_id, id, after, before, 500);
      conversations.push({
        conversation_id: id,
        spans: rows.map((r) => ({
          operation_name: r.operation_name,
          trace_id: r.trace_id,
          span_id: r.span_id,
          status: r.status_code,
          duration_ms: durationMs(r),
        })),
        spans_feedback: await conversationMarkers(this.store, req.project_id, id),
      });
    }
    return { conversations };
  }

  /** §11. */
  async diagnostics(caller: Caller, req: S.AgentSpanDiagnosticsReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    const spans = await this.store.agentSpans.traceSpans(req.project_id, req.trace_id);
    const span = spans.find((s) => s.span_id === req.span_id);
    if (span === undefined) return { status: 'not_found' };
    const { input_tokens: input, cache_read_input_tokens: read, cache_creation_input_tokens: created } = span;
    if (input === 0 && read === 0 && created === 0) return { status: 'not_evaluated', scope: 'selected_span' };
    const findings = cacheFindings(span);
    return { status: 'evaluated', scope: 'selected_span', findings };
  }

  /** §2.7: stores an open span unless one exists; no call is written. */
  async spanStart(caller: Caller, req: S.GenAISpanStartReq): Promise<Json> {
    this.access.assertCanRead(caller, req.project_id);
    await this.access.assertCanWrite(caller, req.project_id);
    let startedAt = Date.now() * 1000;
    if (req.started_at !== undefined) {
      const parsed = parseIsoMicros(req.started_at);
      if (parsed === null) throw invalid('started_at is not an ISO 8601 date-time', ['body', 'started_at']);
      startedAt = parsed;
    }
    const record: AgentSpanRecord = emptySpan({
      project_id: req.project_id,
      trace_id: req.trace_id,
      span_id: req.span_id,
      parent_span_id: req.parent_span_id ?? '',
      span_name: req.span_name ?? '',
      operation_name: req.operation_name ?? '',
      agent_name: req.agent_name ?? '',
      request_model: req.request_model ?? '',
      started_at: startedAt,
      wb_user_id: caller.userId,
    });
    await this.store.agentSpans.start(record);
    return {};
  }
}
