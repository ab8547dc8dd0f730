import { contentDigest } from '../../domain/agent-content.js';
import {
  AGENT_FLOAT_COLUMNS,
  AGENT_INT_COLUMNS,
  AGENT_STRING_COLUMNS,
  CUSTOM_SOURCES,
  type AgentSpanRecord,
} from '../agent-types.js';
import { type CompiledSql, frag, raw, type Fragment, type SqlTag } from './core/sql-tag.js';
import { all, run, runAll, type Tx } from './core/sql-tx.js';

/** The statements that store agent spans (docs/spec/agents.md §2.6, §3.2), shared by both adapters. */

/** Every stored column but the attribution, in the order of migration 033. */
export const RECORD_COLUMNS: readonly string[] = [
  'project_id',
  'trace_id',
  'span_id',
  'parent_span_id',
  'span_name',
  'span_kind',
  'started_at',
  'ended_at',
  'status_code',
  'status_message',
  ...AGENT_STRING_COLUMNS,
  ...AGENT_INT_COLUMNS,
  ...AGENT_FLOAT_COLUMNS,
  'finish_reasons',
  'request_stop_sequences',
  'eval_trial_index',
  'wb_user_id',
  'wb_run_id',
  'wb_run_step',
  'wb_run_step_end',
  'details',
  'custom_attrs',
  'raw_span_dump',
];

const INT_COLUMNS: ReadonlySet<string> = new Set([...AGENT_INT_COLUMNS, 'wb_run_step', 'wb_run_step_end']);
const FLOAT_COLUMNS: ReadonlySet<string> = new Set(AGENT_FLOAT_COLUMNS);

/**
 * A number as both stores can hold it: a span may send any double (OTLP JSON also spells NaN and
 * Infinity), which a BIGINT column refuses past 2^63 and a NOT NULL column refuses as NaN. Integers
 * are truncated and kept within JavaScript's safe range; what is not finite is 0.
 */
export function storableNumber(value: unknown, integer: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0;
  if (!integer) return value;
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.trunc(value)));
}

function columnValue(r: AgentSpanRecord, column: string): unknown {
  if (INT_COLUMNS.has(column)) return storableNumber(r[column as keyof AgentSpanRecord], true);
  if (FLOAT_COLUMNS.has(column)) return storableNumber(r[column as keyof AgentSpanRecord], false);
  if (column === 'eval_trial_index' && r.eval_trial_index !== null) return storableNumber(r.eval_trial_index, true);
  switch (column) {
    case 'finish_reasons':
    case 'request_stop_sequences':
      return JSON.stringify(r[column]);
    case 'details':
      return JSON.stringify(r.details);
    case 'custom_attrs':
      return JSON.stringify(r.custom);
    default:
      return (r as unknown as Record<string, unknown>)[column];
  }
}

/** §2.6 message occurrences: outputs, inputs, system instructions, tool arguments and result. */
export function occurrences(r: AgentSpanRecord): Array<{ role: string; content: string }> {
  const d = r.details;
  const out = [
    ...d.output_messages.map((m) => ({ role: m.role, content: m.content })),
    ...d.input_messages.map((m) => ({ role: m.role, content: m.content })),
    ...d.system_instructions.map((content) => ({ role: 'system', content })),
    { role: 'tool_call', content: d.tool_call_arguments },
    { role: 'tool_result', content: d.tool_call_result },
  ];
  return out.filter((o) => o.content !== '');
}

const ATTR_PLACEHOLDER = '';
const KEY_COLUMNS = new Set(['project_id', 'trace_id', 'span_id']);
const ATTRIBUTION_COLUMNS = ['attr_agent_name', 'attr_agent_version', 'attr_agent_id', 'attr_conversation_id'];
const STORED_COLUMNS = [...RECORD_COLUMNS, ...ATTRIBUTION_COLUMNS].join(', ');
/** `col = excluded.col` for every column an upsert of a span replaces (all but its key). */
const REPLACED_COLUMNS = [...RECORD_COLUMNS, ...ATTRIBUTION_COLUMNS]
  .filter((c) => !KEY_COLUMNS.has(c))
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');
const ROWS_PER_INSERT = 100;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ROWS_PER_INSERT) out.push(items.slice(i, i + ROWS_PER_INSERT));
  return out;
}

const joinRows = (rows: Fragment[]): Fragment => rows.slice(1).reduce((acc, row) => frag`${acc}, ${row}`, rows[0]!);

function insertStatements(sql: SqlTag, r: AgentSpanRecord, ifAbsent: boolean): CompiledSql[] {
  const key = [r.project_id, r.trace_id, r.span_id] as const;
  const values = RECORD_COLUMNS.map((c) => columnValue(r, c));
  const attrs = ATTRIBUTION_COLUMNS.map(() => ATTR_PLACEHOLDER);
  const row = [...values, ...attrs];
  if (ifAbsent)
    return [
      sql`INSERT INTO agent_spans (${raw(STORED_COLUMNS)}) VALUES ${row} ON CONFLICT (project_id, trace_id, span_id) DO NOTHING`,
    ];
  // The span's row first, as an upsert: it locks the key, so a concurrent write of the same span waits
  // here and then replaces this one's messages and attributes whole (a delete-then-insert let both
  // writers delete nothing and insert the same attribute keys).
  const out: CompiledSql[] = [
    sql`INSERT INTO agent_spans (${raw(STORED_COLUMNS)}) VALUES ${row}
      ON CONFLICT (project_id, trace_id, span_id) DO UPDATE SET ${raw(REPLACED_COLUMNS)}`,
    sql`DELETE FROM agent_span_messages WHERE project_id = ${key[0]} AND trace_id = ${key[1]} AND span_id = ${key[2]}`,
    sql`DELETE FROM agent_span_attrs WHERE project_id = ${key[0]} AND trace_id = ${key[1]} AND span_id = ${key[2]}`,
  ];
  const messages = occurrences(r).map(
    (o, seq) => frag`${[...key, seq, o.role, o.content, contentDigest(o.content), r.started_at]}`,
  );
  // one statement per table and span, at most ROWS_PER_INSERT rows each (bound parameters stay few)
  for (const chunk of chunks(messages))
    out.push(sql`INSERT INTO agent_span_messages (project_id, trace_id, span_id, seq, role, content, content_digest, started_at)
      VALUES ${joinRows(chunk)}`);
  const attrRows: Fragment[] = [];
  for (const source of CUSTOM_SOURCES) {
    for (const [attrKey, value] of Object.entries(r.custom[source])) {
      const text = typeof value === 'string' ? value : null;
      const num =
        typeof value === 'number'
          ? Number.isFinite(value)
            ? value
            : null
          : typeof value === 'boolean'
            ? value
              ? 1
              : 0
            : null;
      attrRows.push(frag`${[...key, source, attrKey, text, num]}`);
    }
  }
  for (const chunk of chunks(attrRows))
    out.push(sql`INSERT INTO agent_span_attrs (project_id, trace_id, span_id, source, attr_key, value_text, value_num)
      VALUES ${joinRows(chunk)}`);
  return out;
}

interface IdentityRow {
  span_id: string;
  parent_span_id: string;
  started_at: number | string;
  agent_name: string;
  agent_version: string;
  agent_id: string;
  conversation_id: string;
  attr_agent_name: string;
  attr_agent_version: string;
  attr_agent_id: string;
  attr_conversation_id: string;
}

type Attribution = Pick<
  IdentityRow,
  'attr_agent_name' | 'attr_agent_version' | 'attr_agent_id' | 'attr_conversation_id'
>;

/** §3.2: own agent triple, else the immediate parent's, else the trace's earliest; conversation likewise. */
export function attribute(rows: IdentityRow[]): Map<string, Attribution> {
  const byId = new Map(rows.map((r) => [r.span_id, r]));
  const ordered = [...rows].sort(
    (a, b) =>
      Number(a.started_at) - Number(b.started_at) || (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0),
  );
  const earliestAgent = ordered.find((r) => r.agent_name !== '');
  const earliestConversation = ordered.find((r) => r.conversation_id !== '')?.conversation_id ?? '';
  const out = new Map<string, Attribution>();
  for (const r of rows) {
    const parent = byId.get(r.parent_span_id);
    const from = r.agent_name !== '' ? r : parent !== undefined && parent.agent_name !== '' ? parent : earliestAgent;
    out.set(r.span_id, {
      attr_agent_name: from?.agent_name ?? '',
      attr_agent_version: from?.agent_version ?? '',
      attr_agent_id: from?.agent_id ?? '',
      attr_conversation_id: r.conversation_id !== '' ? r.conversation_id : earliestConversation,
    });
  }
  return out;
}

/** Recomputes the attribution of one trace's spans, updating only the rows whose values change. */
export function* reattribute(sql: SqlTag, projectId: string, traceId: string): Tx<void> {
  const rows = yield* all<IdentityRow>(sql`SELECT span_id, parent_span_id, started_at, agent_name, agent_version,
    agent_id, conversation_id, attr_agent_name, attr_agent_version, attr_agent_id, attr_conversation_id
    FROM agent_spans WHERE project_id = ${projectId} AND trace_id = ${traceId}`);
  const updates: CompiledSql[] = [];
  for (const [spanId, a] of attribute(rows)) {
    const row = rows.find((r) => r.span_id === spanId)!;
    if (
      row.attr_agent_name === a.attr_agent_name &&
      row.attr_agent_version === a.attr_agent_version &&
      row.attr_agent_id === a.attr_agent_id &&
      row.attr_conversation_id === a.attr_conversation_id
    )
      continue;
    updates.push(sql`UPDATE agent_spans SET attr_agent_name = ${a.attr_agent_name},
      attr_agent_version = ${a.attr_agent_version}, attr_agent_id = ${a.attr_agent_id},
      attr_conversation_id = ${a.attr_conversation_id}
      WHERE project_id = ${projectId} AND trace_id = ${traceId} AND span_id = ${spanId}`);
  }
  if (updates.length > 0) yield* runAll(updates);
}

const spanKey = (r: AgentSpanRecord): string => `${r.project_id}\n${r.trace_id}\n${r.span_id}`;
const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Stores spans (replacing rows with the same key) and re-attributes every trace touched. */
export function* writeSpans(sql: SqlTag, records: AgentSpanRecord[], ifAbsent = false): Tx<number> {
  let stored = 0;
  // in key order, so two batches that share spans lock them in the same order (a stable sort keeps
  // the last of a repeated span last)
  const ordered = [...records].sort((a, b) => compareKeys(spanKey(a), spanKey(b)));
  const statements = ordered.flatMap((r) => insertStatements(sql, r, ifAbsent));
  if (ifAbsent) {
    for (const statement of statements) stored += yield* run(statement);
  } else {
    yield* runAll(statements);
    stored = records.length;
  }
  const traces = new Map<string, [string, string]>();
  for (const r of records) traces.set(`${r.project_id}\n${r.trace_id}`, [r.project_id, r.trace_id]);
  for (const [projectId, traceId] of traces.values()) yield* reattribute(sql, projectId, traceId);
  return stored;
}
