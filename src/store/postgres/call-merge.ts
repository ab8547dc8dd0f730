import { latencyMsSql } from '../sql/calls-query/latency.js';
import type { CallEndPart, CallPart, CallStartPart } from '../types.js';

/**
 * Folds call parts into one row per call, applying the merge rules of docs/spec/calls.md §3 in arrival
 * order, so a whole batch becomes a single multi-row upsert (PostgreSQL refuses to touch one row
 * twice in one `INSERT … ON CONFLICT`). The upsert then applies the folded row to the stored one
 * with the same rules: start fields come from the row when it carries a start (`started_at` set),
 * end fields when it carries an end (`ended_at` set), and a non-null display name wins.
 */
export interface MergedCall {
  project_id: string;
  id: string;
  start: Omit<CallStartPart, 'kind' | 'project_id' | 'id' | 'display_name'> | null;
  end: Omit<CallEndPart, 'kind' | 'project_id' | 'id'> | null;
  /** The display name to set (a later start without one keeps it, docs/spec/calls.md §3). */
  display_name: string | null;
}

export function mergeParts(parts: readonly CallPart[]): MergedCall[] {
  const byKey = new Map<string, MergedCall>();
  for (const part of parts) {
    const key = `${part.project_id}\u0000${part.id}`;
    let row = byKey.get(key);
    if (!row) {
      row = { project_id: part.project_id, id: part.id, start: null, end: null, display_name: null };
      byKey.set(key, row);
    }
    if (part.kind === 'start') {
      const { kind: _kind, project_id: _project, id: _id, display_name, ...start } = part;
      row.start = start;
      if (display_name !== null) row.display_name = display_name;
    } else if (part.kind === 'end') {
      const { kind: _kind, project_id: _project, id: _id, ...end } = part;
      row.end = end;
    } else {
      row.display_name = part.display_name;
    }
  }
  // one lock order for every writer on every node, so concurrent batches cannot deadlock
  return [...byKey.values()].sort((a, b) => compare(a.project_id, b.project_id) || compare(a.id, b.id));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const START_TEXT = ['op_name', 'op_display_name', 'trace_id', 'parent_id', 'thread_id', 'turn_id'] as const;
const START_JSON = ['attributes', 'inputs', 'otel_dump'] as const;

const SET_START = [...START_TEXT, 'wb_user_id', 'wb_run_id', 'started_at', 'wb_run_step', ...START_JSON].map(
  (c) => `${c} = CASE WHEN excluded.started_at IS NULL THEN calls.${c} ELSE excluded.${c} END`,
);
const SET_END = ['ended_at', 'exception', 'output', 'summary', 'wb_run_step_end'].map(
  (c) => `${c} = CASE WHEN excluded.ended_at IS NULL THEN calls.${c} ELSE excluded.${c} END`,
);

/**
 * The whole batch travels as one JSON array parameter whose JSON columns are the stored texts
 * spliced in unchanged: the server parses it once, and `e -> 'inputs'` hands each value over as
 * JSONB without another parse (text arrays would be escaped by the driver and parsed twice). A key
 * is present only when the part carries a value, so `->` gives SQL NULL for a missing part and
 * JSONB null for a stored JSON null. One statement text for any batch size: planned once per
 * connection. `change_seq` is the transaction id, the live tail's write order (ui-schema.ts).
 */
export const UPSERT_SQL = `
  INSERT INTO calls (project_id, id, display_name, ${START_TEXT.join(', ')}, wb_user_id, wb_run_id, started_at, wb_run_step,
                     ${START_JSON.join(', ')}, ended_at, exception, output, summary, wb_run_step_end, change_seq, rolled_up, latency_ms)
  SELECT e->>'project_id', e->>'id', e->>'display_name', ${START_TEXT.map((c) => `e->>'${c}'`).join(', ')},
         e->>'wb_user_id', e->>'wb_run_id', (e->>'started_at')::bigint, (e->>'wb_run_step')::bigint,
         ${START_JSON.map((c) => `e->'${c}'`).join(', ')},
         (e->>'ended_at')::bigint, e->>'exception', e->'output', e->'summary', (e->>'wb_run_step_end')::bigint,
         pg_current_xact_id()::text::bigint, 1, ${latencyMsSql("(e->>'ended_at')::bigint", "(e->>'started_at')::bigint")}
  FROM jsonb_array_elements($1::jsonb) AS e
  ON CONFLICT (project_id, id) DO UPDATE SET
    change_seq = excluded.change_seq,
    rolled_up = 1,
    display_name = COALESCE(excluded.display_name, calls.display_name),
    ${SET_START.join(',\n    ')},
    ${SET_END.join(',\n    ')},
    latency_ms = ${latencyMsSql('COALESCE(excluded.ended_at, calls.ended_at)', 'COALESCE(excluded.started_at, calls.started_at)')}`;

/** UPSERT_SQL returning what the call roll-up reads of each written row (postgres/rollup-writes.ts). */
export const UPSERT_RETURNING_SQL = `${UPSERT_SQL}
  RETURNING project_id, id, started_at, deleted_at, op_name, ended_at, exception, summary::text AS summary,
    (xmax = 0) AS inserted`;

/** The JSON array parameter of UPSERT_SQL. */
export function upsertPayload(rows: readonly MergedCall[]): string {
  const items = rows.map((row) => {
    const fields: string[] = [`"project_id":${JSON.stringify(row.project_id)}`, `"id":${JSON.stringify(row.id)}`];
    const text = (key: string, value: string | number | null | undefined): void => {
      if (value !== null && value !== undefined) fields.push(`"${key}":${JSON.stringify(value)}`);
    };
    const json = (key: string, value: string | null | undefined): void => {
      if (value !== null && value !== undefined) fields.push(`"${key}":${value}`);
    };
    text('display_name', row.display_name);
    const s = row.start;
    if (s) {
      for (const c of START_TEXT) text(c, s[c]);
      text('wb_user_id', s.wb_user_id);
      text('wb_run_id', s.wb_run_id);
      text('started_at', s.started_at);
      text('wb_run_step', s.wb_run_step);
      for (const c of START_JSON) json(c, s[c]);
    }
    const e = row.end;
    if (e) {
      text('ended_at', e.ended_at);
      text('exception', e.exception);
      json('output', e.output);
      json('summary', e.summary);
      text('wb_run_step_end', e.wb_run_step_end);
    }
    return `{${fields.join(',')}}`;
  });
  return `[${items.join(',')}]`;
}

/** The same rows as column arrays (for COPY in bench/ingest-postgres.ts): the columns of UPSERT_SQL in order. */
export function upsertParams(rows: readonly MergedCall[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: 21 }, () => new Array<unknown>(rows.length));
  rows.forEach((row, i) => {
    const s = row.start;
    const e = row.end;
    const values = [
      row.project_id,
      row.id,
      row.display_name,
      s?.op_name ?? null,
      s?.op_display_name ?? null,
      s?.trace_id ?? null,
      s?.parent_id ?? null,
      s?.thread_id ?? null,
      s?.turn_id ?? null,
      s?.wb_user_id ?? null,
      s?.wb_run_id ?? null,
      s?.started_at ?? null,
      s?.wb_run_step ?? null,
      s?.attributes ?? null,
      s?.inputs ?? null,
      s?.otel_dump ?? null,
      e?.ended_at ?? null,
      e?.exception ?? null,
      e?.output ?? null,
      e?.summary ?? null,
      e?.wb_run_step_end ?? null,
    ];
    values.forEach((value, c) => {
      columns[c]![i] = value;
    });
  });
  return columns;
}
