import type {
  AgentField,
  AgentGroupQuery,
  AgentRollupRow,
  AgentSearchHit,
  AgentSearchQuery,
  AgentSpanQuery,
  AgentSpanRecord,
  AgentSpanRow,
  AgentSpanStore,
  CustomSource,
} from '../agent-types.js';
import { AGENT_FLOAT_COLUMNS, AGENT_INT_COLUMNS } from '../agent-types.js';
import { AgentFilterCompiler, around, columnSql, customSql, DURATION_MS_SQL, valueSql } from './agent-span-filter.js';
import { groupedSql, type DistinctList } from './agent-span-groups.js';
import { RECORD_COLUMNS, writeSpans } from './agent-span-writes.js';
import { frag, raw, sqlTag, type Fragment, type SqlTag } from './core/sql-tag.js';
import { all as allRows, run, type TxDialect, type TxRunner } from './core/sql-tx.js';

/** Agent spans (docs/spec/agents.md) written once over the transaction runner, for both adapters. */

/** The columns that hold numbers: the times, §2.3's integer and float columns, the run step and trial. */
const NUMBER_COLUMNS = new Set<string>([
  'started_at',
  'ended_at',
  ...AGENT_INT_COLUMNS,
  'wb_run_step',
  'wb_run_step_end',
  'eval_trial_index',
  ...AGENT_FLOAT_COLUMNS,
]);

/** Paging values as the database can bind them: a larger offset means "past the end" anyway. */
const bound = (n: number): number => Math.min(Math.max(0, Math.trunc(n)), Number.MAX_SAFE_INTEGER);

/** The number of all rows when a page of `got` rows shows it (not full, and not past the end), else null. */
export function pageTotal(got: number, limit: number, offset: number): number | null {
  if (limit <= 0 || got >= limit) return null;
  if (got > 0 || offset === 0) return bound(offset) + got;
  return null;
}

function json<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return (value as T) ?? fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

/** A stored row as the contract gives it (numbers as numbers, JSON columns parsed). */
function rowFromDb(r: Record<string, unknown>): AgentSpanRow {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) {
    if (NUMBER_COLUMNS.has(key)) out[key] = value === null ? null : Number(value);
    else out[key] = value;
  }
  out.finish_reasons = json(r.finish_reasons, []);
  out.request_stop_sequences = json(r.request_stop_sequences, []);
  out.details = json(r.details, {});
  out.custom = json(r.custom_attrs, {
    custom_attrs_string: {},
    custom_attrs_int: {},
    custom_attrs_float: {},
    custom_attrs_bool: {},
  });
  delete out.custom_attrs;
  return out as unknown as AgentSpanRow;
}

/** A trace's spans for the chat projection: every column but the raw span dump, which it never reads. */
const TRACE_SPAN_COLUMNS = [
  ...RECORD_COLUMNS.filter((c) => c !== 'raw_span_dump').map((c) => `s.${c}`),
  "'' AS raw_span_dump",
  ...['attr_agent_name', 'attr_agent_version', 'attr_agent_id', 'attr_conversation_id'].map((c) => `s.${c}`),
].join(', ');

const ROLLUP_SORT = new Set([
  'last_seen',
  'first_seen',
  'invocation_count',
  'span_count',
  'total_input_tokens',
  'error_count',
]);

/**
 * Runs one `writeSpans` transaction; by default through the runner. The SQLite store runs it whole on
 * its writer thread instead (write-commands.ts `agentSpans.write`): as a `tx.run` transaction each of
 * its statements waited for a turn of the main thread, which ingest keeps busy.
 */
export type AgentSpanWriter = (records: AgentSpanRecord[], ifAbsent: boolean) => Promise<number>;

export class SqlAgentSpanStore implements AgentSpanStore {
  readonly #sql: SqlTag;
  readonly #writeSpans: AgentSpanWriter;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
    private readonly distinctList: DistinctList,
    writer?: AgentSpanWriter,
  ) {
    const sql = sqlTag(dialect.d);
    this.#sql = sql;
    this.#writeSpans = writer ?? ((records, ifAbsent) => tx.transaction(() => writeSpans(sql, records, ifAbsent)));
  }

  async write(records: AgentSpanRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#writeSpans(records, false);
  }

  async start(record: AgentSpanRecord): Promise<boolean> {
    return (await this.#writeSpans([record], true)) > 0;
  }

  async deleteBySpanIds(projectId: string, spanIds: string[]): Promise<void> {
    if (spanIds.length === 0) return;
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      // the spans and their descendants, as the call cascade deletes a call's subtree
      const all = new Set(spanIds);
      let frontier = [...all];
      while (frontier.length > 0) {
        const children = yield* allRows<{ span_id: string }>(
          sql`SELECT span_id FROM agent_spans WHERE project_id = ${projectId} AND parent_span_id IN ${frontier}`,
        );
        frontier = children.map((c) => c.span_id).filter((id) => !all.has(id));
        for (const id of frontier) all.add(id);
      }
      const ids = [...all];
      for (const table of ['agent_span_messages', 'agent_span_attrs', 'agent_spans'])
        yield* run(sql`DELETE FROM ${raw(table)} WHERE project_id = ${projectId} AND span_id IN ${ids}`);
    });
  }

  #where(q: Omit<AgentSpanQuery, 'sort'>, attributed: boolean): Fragment {
    let where = frag`s.project_id = ${q.projectId}`;
    if (q.startedAfter !== null) where = frag`${where} AND s.started_at >= ${q.startedAfter}`;
    if (q.startedBefore !== null) where = frag`${where} AND s.started_at < ${q.startedBefore}`;
    if (q.filter !== null)
      where = frag`${where} AND ${new AgentFilterCompiler(this.dialect.d, attributed).compile(q.filter)}`;
    return where;
  }

  async spans(q: AgentSpanQuery): Promise<{ rows: AgentSpanRow[]; total: number }> {
    const where = this.#where(q, true);
    const order = q.sort.map((k) => {
      const f = k.field;
      const expr =
        f.kind === 'column'
          ? frag`${raw(columnSql(f.column, true))}`
          : f.kind === 'custom'
            ? customSql(f.source ?? 'custom_attrs_string', f.key)
            : frag`${raw(DURATION_MS_SQL)}`;
      return frag`${expr} ${raw(k.direction === 'asc' ? 'ASC' : 'DESC')} NULLS LAST`;
    });
    const tie = q.sort[0]?.direction === 'asc' ? 'ASC' : 'DESC';
    const orderBy = order.reduce((acc, o) => frag`${acc}${o}, `, frag``);
    const cols = [...RECORD_COLUMNS, 'attr_agent_name', 'attr_agent_version', 'attr_agent_id', 'attr_conversation_id'];
    const [rows, count] = await Promise.all([
      q.limit === 0
        ? Promise.resolve([])
        : this.tx.read<Record<string, unknown>>(
            this.#sql`SELECT ${raw(cols.map((c) => `s.${c}`).join(', '))} FROM agent_spans s WHERE ${where}
              ORDER BY ${orderBy}s.span_id ${raw(tie)} LIMIT ${bound(q.limit)} OFFSET ${bound(q.offset)}`,
          ),
      this.tx.read<{ n: number | string }>(this.#sql`SELECT COUNT(*) AS n FROM agent_spans s WHERE ${where}`),
    ]);
    return { rows: rows.map(rowFromDb), total: Number(count[0]?.n ?? 0) };
  }

  async groups(q: AgentGroupQuery): Promise<{ rows: Array<Record<string, unknown>>; total: number }> {
    const { select, order } = groupedSql(q, this.#where(q, true), this.dialect.d, this.distinctList);
    const rows =
      q.limit === 0
        ? []
        : await this.tx.read<Record<string, unknown>>(
            this
              .#sql`SELECT * FROM (${select}) g ORDER BY ${raw(order)} LIMIT ${bound(q.limit)} OFFSET ${bound(q.offset)}`,
          );
    // a page that is not full says how many groups there are: the grouping (a pass over every
    // matching span) runs a second time only when it does not
    const known = pageTotal(rows.length, q.limit, q.offset);
    if (known !== null) return { rows, total: known };
    const count = await this.tx.read<{ n: number | string }>(this.#sql`SELECT COUNT(*) AS n FROM (${select}) g`);
    return { rows, total: Number(count[0]?.n ?? 0) };
  }

  async statValues(
    q: Omit<AgentSpanQuery, 'sort' | 'limit' | 'offset'>,
    groupBy: AgentField[],
    values: AgentField[],
  ): Promise<Array<Record<string, unknown>>> {
    const cols = [
      frag`s.started_at`,
      ...groupBy.map((f, i) => frag`${valueSql(f, true).sql} AS group_${raw(String(i))}`),
      ...values.map((f, i) => frag`${valueSql(f, true).sql} AS value_${raw(String(i))}`),
    ];
    const list = cols.slice(1).reduce((acc, c) => frag`${acc}, ${c}`, cols[0]!);
    return this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT ${list} FROM agent_spans s WHERE ${this.#where({ ...q, limit: 0, offset: 0 }, true)}`,
    );
  }

  /** Raw spans of one project whose own conversation id is one of `ids` (the group previews of §4.2). */
  async conversationPreviewSpans(
    projectId: string,
    ids: string[],
    startedAfter: number | null,
    startedBefore: number | null,
  ): Promise<AgentSpanRow[]> {
    if (ids.length === 0) return [];
    let where = frag`s.project_id = ${projectId} AND s.conversation_id IN ${ids}`;
    if (startedAfter !== null) where = frag`${where} AND s.started_at >= ${startedAfter}`;
    if (startedBefore !== null) where = frag`${where} AND s.started_at < ${startedBefore}`;
    const rows = await this.tx.read<Record<string, unknown>>(this.#sql`SELECT * FROM agent_spans s WHERE ${where}`);
    return rows.map(rowFromDb);
  }

  async customAttrs(
    q: Omit<AgentSpanQuery, 'sort'>,
  ): Promise<Array<{ source: CustomSource; key: string; span_count: number }>> {
    const where = this.#where(q, false);
    const rows = await this.tx.read<{ source: CustomSource; attr_key: string; n: number | string }>(
      this.#sql`SELECT a.source, a.attr_key, COUNT(*) AS n FROM agent_span_attrs a
        JOIN agent_spans s ON s.project_id = a.project_id AND s.trace_id = a.trace_id AND s.span_id = a.span_id
        WHERE a.project_id = ${q.projectId} AND ${where}
        GROUP BY a.source, a.attr_key ORDER BY n DESC, a.attr_key ASC, a.source ASC
        LIMIT ${bound(q.limit)} OFFSET ${bound(q.offset)}`,
    );
    return rows.map((r) => ({ source: r.source, key: r.attr_key, span_count: Number(r.n) }));
  }

  async agents(q: {
    projectId: string;
    agentName: string | null;
    byVersion: boolean;
    sort: Array<{ field: string; direction: 'asc' | 'desc' }>;
    limit: number;
    offset: number;
  }): Promise<{ rows: AgentRollupRow[]; total: number }> {
    const groupCols = q.byVersion ? 's.agent_name, s.agent_version' : 's.agent_name';
    // `> ''` (every name but the empty one) is a range the roll-up index seeks to, where `<> ''` is not
    let where = frag`s.project_id = ${q.projectId} AND s.agent_name > ''`;
    if (q.agentName !== null) where = frag`${where} AND s.agent_name = ${q.agentName}`;
    const sort = q.sort.filter((k) => ROLLUP_SORT.has(k.field));
    const order =
      sort.length > 0
        ? sort.map((k) => `${k.field} ${k.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ') + ', agent_name ASC'
        : q.byVersion
          ? 'last_seen DESC, agent_version ASC'
          : 'last_seen DESC, agent_name ASC';
    const duration = `CASE WHEN s.ended_at > s.started_at THEN (s.ended_at - s.started_at) / 1000 ELSE 0 END`;
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT s.agent_name AS agent_name, ${raw(q.byVersion ? 's.agent_version' : "''")} AS agent_version,
        SUM(CASE WHEN s.operation_name = 'invoke_agent' THEN 1 ELSE 0 END) AS invocation_count,
        COUNT(*) AS span_count, SUM(s.input_tokens) AS total_input_tokens, SUM(s.output_tokens) AS total_output_tokens,
        SUM(${raw(duration)}) AS total_duration_ms,
        SUM(CASE WHEN s.status_code = 'ERROR' THEN 1 ELSE 0 END) AS error_count,
        MIN(s.started_at) AS first_seen, MAX(s.started_at) AS last_seen
        FROM agent_spans s WHERE ${where} GROUP BY ${raw(groupCols)}
        ORDER BY ${raw(order)} LIMIT ${bound(q.limit)} OFFSET ${bound(q.offset)}`,
    );
    const total =
      pageTotal(rows.length, q.limit, q.offset) ??
      Number(
        (
          await this.tx.read<{ n: number | string }>(
            this
              .#sql`SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM agent_spans s WHERE ${where} GROUP BY ${raw(groupCols)}) g`,
          )
        )[0]?.n ?? 0,
      );
    const num = (v: unknown) => Number(v ?? 0);
    return {
      rows: rows.map((r) => ({
        agent_name: String(r.agent_name),
        agent_version: String(r.agent_version),
        invocation_count: num(r.invocation_count),
        span_count: num(r.span_count),
        total_input_tokens: num(r.total_input_tokens),
        total_output_tokens: num(r.total_output_tokens),
        total_duration_ms: Math.trunc(num(r.total_duration_ms)),
        error_count: num(r.error_count),
        first_seen: num(r.first_seen),
        last_seen: num(r.last_seen),
      })),
      total,
    };
  }

  async search(q: AgentSearchQuery): Promise<AgentSearchHit[]> {
    const d = this.dialect.d;
    let where = frag`m.project_id = ${q.projectId}`;
    // case-sensitive substring, no pattern characters (§8)
    if (q.text !== '') {
      const candidates = d.messageCandidates('m', q.text);
      if (candidates !== null) where = frag`${where} AND ${around(candidates.sql, [frag`${candidates.value}`])}`;
      where = frag`${where} AND ${around(d.containsText('m.content', '\u0002'), [frag`${q.text}`])}`;
    }
    if (q.traceId !== null) where = frag`${where} AND m.trace_id = ${q.traceId}`;
    if (q.conversationId !== null) where = frag`${where} AND s.attr_conversation_id = ${q.conversationId}`;
    if (q.agentName !== null) where = frag`${where} AND s.attr_agent_name = ${q.agentName}`;
    if (q.providerName !== null) where = frag`${where} AND s.provider_name = ${q.providerName}`;
    if (q.requestModel !== null) where = frag`${where} AND s.request_model = ${q.requestModel}`;
    if (q.roles !== null)
      where = q.roles.length === 0 ? frag`${where} AND 1 = 0` : frag`${where} AND m.role IN ${q.roles}`;
    if (q.startedAfter !== null) where = frag`${where} AND m.started_at >= ${q.startedAfter}`;
    if (q.startedBefore !== null) where = frag`${where} AND m.started_at < ${q.startedBefore}`;
    const collapse = q.text !== '';
    // the collapse rule of §8: per (conversation or trace, role, content), the newest occurrence
    const rank = collapse
      ? `, ROW_NUMBER() OVER (PARTITION BY CASE WHEN s.attr_conversation_id <> '' THEN 'c' || s.attr_conversation_id
           ELSE 't' || m.trace_id END, m.role, m.content_digest, m.content
           ORDER BY m.started_at DESC, m.span_id ASC) AS rn`
      : ', 1 AS rn';
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM (SELECT m.trace_id, m.span_id, m.role, m.content, m.content_digest, m.started_at, m.seq,
          s.attr_conversation_id AS conversation_id, s.conversation_name, s.attr_agent_name AS agent_name ${raw(rank)}
        FROM agent_span_messages m JOIN agent_spans s
          ON s.project_id = m.project_id AND s.trace_id = m.trace_id AND s.span_id = m.span_id
        WHERE ${where}) h WHERE h.rn = 1
        ORDER BY h.started_at DESC, h.span_id ASC, h.role ASC, h.seq ASC LIMIT ${bound(q.limit)} OFFSET ${bound(q.offset)}`,
    );
    return rows.map((r) => ({
      trace_id: String(r.trace_id),
      span_id: String(r.span_id),
      role: String(r.role),
      content: String(r.content),
      content_digest: String(r.content_digest),
      started_at: Number(r.started_at),
      conversation_id: String(r.conversation_id),
      conversation_name: String(r.conversation_name),
      agent_name: String(r.agent_name),
    }));
  }

  async traceSpans(projectId: string, traceId: string): Promise<AgentSpanRow[]> {
    // `+ 0`: an index in started_at order must not look cheaper than the trace's own rows (SQLite
    // without statistics walked the whole project in that order to skip a sort of a few rows)
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT ${raw(TRACE_SPAN_COLUMNS)} FROM agent_spans s
        WHERE s.project_id = ${projectId} AND s.trace_id = ${traceId} ORDER BY s.started_at + 0, s.span_id`,
    );
    return rows.map(rowFromDb);
  }

  async conversationTurns(
    projectId: string,
    conversationId: string,
    limit: number,
    offset: number,
  ): Promise<{ traces: Array<{ trace_id: string; started_at: number }>; total: number }> {
    // grouped by an expression, so no index in trace order looks cheaper than the conversation's
    // own rows (SQLite without statistics walked the project's primary key to skip a sort)
    const turns = frag`SELECT s.trace_id || '' AS trace_key, MIN(s.started_at) AS started_at FROM agent_spans s
      WHERE s.project_id = ${projectId} AND s.conversation_id = ${conversationId} GROUP BY s.trace_id || ''`;
    const [rows, count] = await Promise.all([
      this.tx.read<{ trace_id: string; started_at: number | string }>(
        this.#sql`SELECT t.trace_key AS trace_id, t.started_at FROM (${turns}) t
          ORDER BY t.started_at DESC, t.trace_key DESC LIMIT ${bound(limit)} OFFSET ${bound(offset)}`,
      ),
      this.tx.read<{ n: number | string }>(this.#sql`SELECT COUNT(*) AS n FROM (${turns}) t`),
    ]);
    return {
      traces: rows.map((r) => ({ trace_id: r.trace_id, started_at: Number(r.started_at) })),
      total: Number(count[0]?.n ?? 0),
    };
  }

  async conversationSpans(
    projectId: string,
    conversationId: string,
    startedAfter: number | null,
    startedBefore: number | null,
    cap: number,
  ): Promise<AgentSpanRow[]> {
    let where = frag`s.project_id = ${projectId} AND s.conversation_id = ${conversationId}`;
    if (startedAfter !== null) where = frag`${where} AND s.started_at >= ${startedAfter}`;
    if (startedBefore !== null) where = frag`${where} AND s.started_at < ${startedBefore}`;
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT s.trace_id, s.span_id, s.operation_name, s.status_code, s.started_at, s.ended_at
        FROM agent_spans s WHERE ${where} ORDER BY s.started_at DESC, s.span_id DESC LIMIT ${cap}`,
    );
    return rows.map(rowFromDb).reverse();
  }
}
