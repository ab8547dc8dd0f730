import type { CallEndPart, CallPart, CallStartPart } from '../types.js';

/**
 * Folds call parts into one row per call, applying the merge rules of calls spec §3 in arrival
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
  /** The display name to set (a later start without one keeps it, spec §3). */
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

/**
 * `INSERT … SELECT FROM unnest(arrays)`: one statement text for any batch size (one parameter per
 * column), so the server parses and plans it once per connection.
 */
export const UPSERT_SQL = `
  INSERT INTO calls (project_id, id, display_name, op_name, op_display_name, trace_id, parent_id, thread_id, turn_id,
                     wb_user_id, wb_run_id, started_at, wb_run_step, attributes, inputs, otel_dump,
                     ended_at, exception, output, summary, wb_run_step_end)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::jsonb[], $15::jsonb[], $16::jsonb[],
                       $17::bigint[], $18::text[], $19::jsonb[], $20::jsonb[], $21::bigint[])
  ON CONFLICT (project_id, id) DO UPDATE SET
    display_name = COALESCE(excluded.display_name, calls.display_name),
    ${[...START_TEXT, 'wb_user_id', 'wb_run_id', 'started_at', 'wb_run_step', ...START_JSON]
      .map((c) => `${c} = CASE WHEN excluded.started_at IS NULL THEN calls.${c} ELSE excluded.${c} END`)
      .join(',\n    ')},
    ${['ended_at', 'exception', 'output', 'summary', 'wb_run_step_end']
      .map((c) => `${c} = CASE WHEN excluded.ended_at IS NULL THEN calls.${c} ELSE excluded.${c} END`)
      .join(',\n    ')}`;

/** The 21 column arrays of UPSERT_SQL for the merged rows. */
export function upsertParams(rows: readonly MergedCall[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: 21 }, () => new Array<unknown>(rows.length));
  rows.forEach((row, i) => {
    const s = row.start;
    const e = row.end;
    const values = [
      row.project_id, row.id, row.display_name,
      s?.op_name ?? null, s?.op_display_name ?? null, s?.trace_id ?? null, s?.parent_id ?? null, s?.thread_id ?? null, s?.turn_id ?? null,
      s?.wb_user_id ?? null, s?.wb_run_id ?? null, s?.started_at ?? null, s?.wb_run_step ?? null,
      s?.attributes ?? null, s?.inputs ?? null, s?.otel_dump ?? null,
      e?.ended_at ?? null, e?.exception ?? null, e?.output ?? null, e?.summary ?? null, e?.wb_run_step_end ?? null,
    ];
    values.forEach((value, c) => {
      columns[c][i] = value;
    });
  });
  return columns;
}
