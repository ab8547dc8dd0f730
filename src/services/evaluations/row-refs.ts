/**
 * Dataset-row refs as evaluations record their examples: `<dataset ref>/attr/rows/id/<row digest>`
 * (docs/spec/evaluations.md, Refs).
 */

const ROW_REF_MARKER = '/attr/rows/id/';
/** The last step of a dataset-row ref: the row digest. */
const ROW_ID_STEP = '/id/';

export const isRowRef = (example: unknown): example is string =>
  typeof example === 'string' && example.includes(ROW_REF_MARKER);

/** A ref's `…/attr/rows` part and its row digest, or null when it does not end in one row digest. */
export function splitRowRef(uri: string): { rowsRef: string; rowDigest: string } | null {
  const at = uri.lastIndexOf(ROW_ID_STEP);
  const rowDigest = uri.slice(at + ROW_ID_STEP.length);
  if (at < 0 || rowDigest === '' || rowDigest.includes('/')) return null;
  return { rowsRef: uri.slice(0, at), rowDigest };
}
