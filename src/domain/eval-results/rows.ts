import { InvalidRequestError } from '../../errors/app-error.js';
import { compareCodePoints } from '../canonical-json.js';
import type { EvalResultsFilter, EvalResultsSortBy, TrialRecord } from './types.js';
import { holds, parseTrialField, parseTrialQuery, readTrialField, sortableValue } from './value-query.js';

/**
 * Rows of an eval-results query (docs/spec/evaluations.md §4.3 steps 3, 5 and 6): trials grouped by
 * row digest, then intersection, filters, sort and paging.
 */

export interface GroupedRow {
  rowDigest: string;
  /** The first example seen for the row. */
  example: unknown;
  /** Evaluation id → its trials in this row, evaluations in first-seen order. */
  byEvaluation: Map<string, TrialRecord[]>;
}

/** Groups trials by row; `trials` must already be in (evaluation order, trial start) order. */
export function groupRows(trials: TrialRecord[]): GroupedRow[] {
  const rows = new Map<string, GroupedRow>();
  for (const record of trials) {
    let row = rows.get(record.rowDigest);
    if (!row) {
      row = { rowDigest: record.rowDigest, example: record.example, byEvaluation: new Map() };
      rows.set(record.rowDigest, row);
    }
    const list = row.byEvaluation.get(record.evaluationId) ?? [];
    list.push(record);
    row.byEvaluation.set(record.evaluationId, list);
  }
  return [...rows.values()];
}

/** Rows with at least one trial in every evaluation (only with two or more evaluations). */
export function intersect(rows: GroupedRow[], evaluationIds: string[], wanted: boolean): GroupedRow[] {
  if (!wanted || evaluationIds.length < 2) return rows;
  return rows.filter((row) => evaluationIds.every((id) => (row.byEvaluation.get(id)?.length ?? 0) > 0));
}

/** Reads the example a row's `inputs.*` fields come from (the resolved row when it was a ref). */
export type ExampleOf = (row: GroupedRow) => unknown;

/**
 * Filters are AND-ed. A filter holds in an evaluation when one of its trials satisfies it (our
 * choice); without an evaluation id it must hold in all (`and`) or any (`or`) of the row's
 * evaluations.
 */
export function applyFilters(
  rows: GroupedRow[],
  filters: EvalResultsFilter[] | null | undefined,
  logic: 'and' | 'or',
  exampleOf: ExampleOf,
): GroupedRow[] {
  if (!filters || filters.length === 0) return rows;
  const compiled = filters.map((f) => ({ evaluationId: f.evaluation_call_id ?? null, op: parseTrialQuery(f.query) }));
  return rows.filter((row) => {
    const example = exampleOf(row);
    const holdsIn = (trials: TrialRecord[] | undefined, op: (typeof compiled)[number]['op']): boolean =>
      (trials ?? []).some((record) => holds(op, (field) => readTrialField(record, field, example)));
    return compiled.every(({ evaluationId, op }) => {
      if (evaluationId !== null) return holdsIn(row.byEvaluation.get(evaluationId), op);
      const results = [...row.byEvaluation.values()].map((trials) => holdsIn(trials, op));
      return logic === 'and' ? results.every(Boolean) : results.some(Boolean);
    });
  });
}

type SortValue = number | string | null;

/**
 * The sort field that orders rows as their dataset does (our choice, beside the spec's `scores.`,
 * `inputs.` and `output.` fields): the position `positionOf` gives a row, rows without one last.
 */
export const DATASET_ORDER = 'dataset_order';

/** A row's place in its dataset order, or null when it has none (src/services/evaluations/dataset-order.ts). */
export type PositionOf = (row: GroupedRow) => number | null;

/** Trials' values averaged when numeric; otherwise the first non-null value. */
function aggregate(values: unknown[]): SortValue {
  const sortable = values.map(sortableValue).filter((v): v is number | string => v !== null);
  if (sortable.length === 0) return null;
  if (sortable.every((v) => typeof v === 'number')) return sortable.reduce((a, b) => a + b, 0) / sortable.length;
  return sortable[0] ?? null;
}

function sortValue(row: GroupedRow, key: EvalResultsSortBy, exampleOf: ExampleOf): SortValue {
  const field = parseTrialField(key.field);
  const example = exampleOf(row);
  const valuesOf = (trials: TrialRecord[]): unknown[] => trials.map((r) => readTrialField(r, field, example));
  if (key.mode === 'difference') {
    const perEvaluation = [...row.byEvaluation.values()]
      .map((trials) => aggregate(valuesOf(trials)))
      .filter((v): v is number => typeof v === 'number');
    return perEvaluation.length === 0 ? null : Math.max(...perEvaluation) - Math.min(...perEvaluation);
  }
  const trials = key.evaluation_call_id
    ? (row.byEvaluation.get(key.evaluation_call_id) ?? [])
    : [...row.byEvaluation.values()].flat();
  return aggregate(valuesOf(trials));
}

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return compareCodePoints(String(a), String(b));
}

/** Sorts by the keys in order; rows without a value go last whatever the direction; ties by digest. */
export function sortRows(
  rows: GroupedRow[],
  sortBy: EvalResultsSortBy[] | null | undefined,
  exampleOf: ExampleOf,
  positionOf: PositionOf = () => null,
) {
  const keys = sortBy ?? [];
  for (const key of keys) {
    const source = key.field === DATASET_ORDER ? null : parseTrialField(key.field).source;
    if (key.mode === 'difference' && source !== 'scores')
      throw new InvalidRequestError(`Sort mode "difference" needs a scores.* field, not "${key.field}"`);
  }
  const values = new Map(
    rows.map((row) => [
      row,
      keys.map((key) => (key.field === DATASET_ORDER ? positionOf(row) : sortValue(row, key, exampleOf))),
    ]),
  );
  return [...rows].sort((a, b) => {
    const va = values.get(a) ?? [];
    const vb = values.get(b) ?? [];
    for (let i = 0; i < keys.length; i += 1) {
      const x = va[i] ?? null;
      const y = vb[i] ?? null;
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
        continue;
      }
      const order = compareValues(x, y);
      if (order !== 0) return keys[i]?.direction === 'desc' ? -order : order;
    }
    return compareCodePoints(a.rowDigest, b.rowDigest);
  });
}
