/**
 * Weave `Leaderboard` objects, pure: their columns (an evaluation ref, a scorer, a metric path,
 * whether lower is better), and the table of models they rank, read from the project's
 * `Evaluation.evaluate` runs as the Python client's `get_leaderboard_results` reads them: one row per
 * model ref, each column the runs of its evaluation, the value at `output[scorer][path…]`.
 */
import type { Call } from './call.js';
import { parseRef } from './format.js';
import { isRecord } from './is-record.js';

export interface BoardColumn {
  evaluationRef: string;
  scorer: string;
  /** The metric path inside the scorer's summary, split (`true_fraction`, `score.mean` → 2 parts). */
  path: string[];
  minimize: boolean;
}

export interface BoardView {
  name: string;
  digest: string;
  description: string | null;
  columns: BoardColumn[];
}

/**
 * A Leaderboard value; each column's path is `summary_metric_path` (dotted, the built-in class) or
 * `summary_metric_path_parts` (a list, `weave.flow.leaderboard`). Columns without a ref or a scorer
 * are left out.
 */
export function boardView(obj: { object_id: string; digest: string; val: unknown }): BoardView {
  const val = isRecord(obj.val) ? obj.val : {};
  const columns = (Array.isArray(val.columns) ? val.columns : []).flatMap((c): BoardColumn[] => {
    if (!isRecord(c) || typeof c.evaluation_object_ref !== 'string' || typeof c.scorer_name !== 'string') return [];
    const parts = Array.isArray(c.summary_metric_path_parts)
      ? c.summary_metric_path_parts.map(String)
      : typeof c.summary_metric_path === 'string' && c.summary_metric_path !== ''
        ? c.summary_metric_path.split('.')
        : [];
    return [
      {
        evaluationRef: c.evaluation_object_ref,
        scorer: c.scorer_name,
        path: parts,
        minimize: c.should_minimize === true,
      },
    ];
  });
  return {
    name: obj.object_id,
    digest: obj.digest,
    description: typeof val.description === 'string' && val.description !== '' ? val.description : null,
    columns,
  };
}

export function columnLabel(c: BoardColumn): string {
  const evaluation = parseRef(c.evaluationRef);
  const name = evaluation ? `${evaluation.name}:${evaluation.digest.slice(0, 6)}` : c.evaluationRef;
  return `${name} · ${[c.scorer, ...c.path].join('.')}`;
}

/** The value at `output[scorer]` then each path part (an index into a list), or undefined. */
export function metricValue(output: unknown, c: BoardColumn): unknown {
  let v: unknown = isRecord(output) ? output[c.scorer] : undefined;
  for (const part of c.path) {
    if (isRecord(v)) v = v[part];
    else if (Array.isArray(v)) v = v[Number(part)];
    else return undefined;
  }
  return v;
}

export interface BoardCell {
  /** The newest run's value (numbers and booleans count; anything else shows as text). */
  value: unknown;
  runId: string;
  runs: number;
}

export interface BoardRow {
  modelRef: string;
  cells: (BoardCell | null)[];
}

const refOf = (v: unknown): string | null => (typeof v === 'string' && v.startsWith('weave:///') ? v : null);

/**
 * One row per model ref over `runs` (newest first): for each column the newest run of its
 * evaluation that has the model's value, and how many runs there are. Runs whose model or
 * evaluation is not a ref are left out, as the client does.
 */
export function boardRows(board: BoardView, runs: readonly Call[]): BoardRow[] {
  const rows = new Map<string, BoardRow>();
  const ordered = [...runs].sort((a, b) => b.started_at.localeCompare(a.started_at));
  for (const run of ordered) {
    const model = refOf(run.inputs?.model);
    const evaluation = refOf(run.inputs?.self);
    if (!model || !evaluation || run.exception) continue;
    let row = rows.get(model);
    board.columns.forEach((c, i) => {
      if (c.evaluationRef !== evaluation) return;
      const value = metricValue(run.output, c);
      if (value === undefined) return;
      row ??= { modelRef: model, cells: board.columns.map(() => null) };
      rows.set(model, row);
      const cell = row.cells[i];
      if (cell) cell.runs++;
      else row.cells[i] = { value, runId: run.id, runs: 1 };
    });
  }
  return [...rows.values()];
}

export const numericOf = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'boolean' ? Number(v) : null;

/**
 * The best value of each column (highest, or lowest where `minimize`); null when fewer than two
 * rows have a number there or all of them are equal, so nothing is marked.
 */
export function bestValues(board: BoardView, rows: readonly BoardRow[]): (number | null)[] {
  return board.columns.map((c, i) => {
    const values = rows.flatMap((r) => {
      const v = numericOf(r.cells[i]?.value);
      return v == null ? [] : [v];
    });
    if (values.length < 2 || values.every((v) => v === values[0])) return null;
    return c.minimize ? Math.min(...values) : Math.max(...values);
  });
}

/** Rows ordered by column `i` (best first: descending, or ascending where `minimize`); rows without a value last. */
export function sortRows(board: BoardView, rows: readonly BoardRow[], i: number | null): BoardRow[] {
  if (i == null || !board.columns[i]) return [...rows];
  const minimize = board.columns[i]!.minimize;
  return [...rows].sort((a, b) => {
    const x = numericOf(a.cells[i]?.value);
    const y = numericOf(b.cells[i]?.value);
    if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1;
    return minimize ? x - y : y - x;
  });
}

export function formatBoardValue(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  if (typeof v === 'boolean') return String(v);
  if (v == null) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
