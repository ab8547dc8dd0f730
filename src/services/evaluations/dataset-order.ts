import type { GroupedRow, PositionOf } from '../../domain/eval-results/rows.js';
import { isRowRef, splitRowRef } from './row-refs.js';

/**
 * Where each compared row stands in its dataset, for the `dataset_order` sort of eval results: the
 * datasets the rows' refs name, in the order the evaluations first name them, each in its table's
 * row order; then the rows given inline (an EvaluationLogger's), in the order they were first seen.
 * A row whose ref names a table that cannot be read, or a row that table lacks, has no place.
 */

/** Rows one dataset may hold before the next dataset's positions begin. */
const DATASET_SPAN = 2 ** 32;

export interface DatasetTables {
  /** The digest of the table a dataset's `…/attr/rows` ref ends at, or null. */
  tableOf(rowsRef: string): Promise<string | null>;
  /** A table's row digests in its order, or null when there is no such table. */
  rowDigests(tableDigest: string): Promise<string[] | null>;
}

/** The dataset's `…/attr/rows` part of a dataset-row ref, or null for an inline example. */
function rowsRefOf(example: unknown): string | null {
  return isRowRef(example) ? (splitRowRef(example)?.rowsRef ?? null) : null;
}

export async function datasetPositions(rows: GroupedRow[], tables: DatasetTables): Promise<PositionOf> {
  const datasets: string[] = [];
  for (const row of rows) {
    const rowsRef = rowsRefOf(row.example);
    if (rowsRef !== null && !datasets.includes(rowsRef)) datasets.push(rowsRef);
  }
  const indexes = new Map<string, Map<string, number>>();
  for (const rowsRef of datasets) {
    const table = await tables.tableOf(rowsRef);
    const digests = table === null ? null : await tables.rowDigests(table);
    indexes.set(rowsRef, new Map((digests ?? []).map((digest, i) => [digest, i])));
  }
  const positions = new Map<GroupedRow, number>();
  let inline = 0;
  for (const row of rows) {
    const rowsRef = rowsRefOf(row.example);
    if (rowsRef === null) {
      positions.set(row, datasets.length * DATASET_SPAN + inline);
      inline += 1;
      continue;
    }
    const index = indexes.get(rowsRef)?.get(row.rowDigest);
    if (index !== undefined) positions.set(row, datasets.indexOf(rowsRef) * DATASET_SPAN + index);
  }
  return (row) => positions.get(row) ?? null;
}
