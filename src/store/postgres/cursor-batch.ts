/**
 * Rows a PostgreSQL cursor read asks for (the call and table streams): the first read takes
 * FIRST_CURSOR_BATCH, later ones as many as fit in BATCH_BYTES at the size the rows had so far
 * (between 16 and MAX_BATCH). Light rows (a trace's tree: ids, names, times, the summary) then come
 * 4,096 a round trip instead of 256, and rows with megabytes of inputs a few at a time, so memory
 * stays bounded either way.
 */
export const FIRST_CURSOR_BATCH = 256;
const MAX_BATCH = 4_096;
const BATCH_BYTES = 4 * 2 ** 20;

/** The next read's size after rows of `bytesPerRow` on average. */
export function nextCursorBatch(bytesPerRow: number): number {
  if (!(bytesPerRow > 0)) return FIRST_CURSOR_BATCH;
  return Math.max(16, Math.min(MAX_BATCH, Math.floor(BATCH_BYTES / bytesPerRow)));
}

/** The next read's size after `rows`, judged by their string fields (numbers and nulls are small). */
export function nextCursorBatchAfter(rows: readonly object[]): number {
  let bytes = 0;
  for (const row of rows) {
    bytes += 64;
    for (const value of Object.values(row)) if (typeof value === 'string') bytes += value.length;
  }
  return nextCursorBatch(rows.length === 0 ? 0 : bytes / rows.length);
}
