/** Shared by test/clients/ts/dataset-eval.ts and the test that reads its result. */
import type { ScriptOutputBase } from './record-fetch.js';

export const EVAL_PROJECT = 'acme/tsdata';
export const DATASET_NAME = 'arith';
export const EVAL_NAME = 'arith-eval';

/** The model answers all but the last row right (see dataset-eval.ts). */
export const DATASET_ROWS: Array<{ id: string; question: string; expected: string; level: number }> = [
  { id: 'r0', question: '2+2', expected: '4', level: 1 },
  { id: 'r1', question: '3*3', expected: '9', level: 1 },
  { id: 'r2', question: '10-7', expected: '3', level: 2 },
  { id: 'r3', question: '2**5', expected: '32', level: 3 },
];

export interface DatasetEvalOutput extends ScriptOutputBase {
  /** The ref client.publish returned for the dataset. */
  datasetUri: string | null;
  /** Row refs the published Dataset object handed out (getRow(i).__savedRef), in row order. */
  publishedRowRefs: Array<string | null>;
  /** Constructor name of what ObjectRef.get() returned. */
  readBackClass: string | null;
  readBackLength: number | null;
  /** Rows of the read-back dataset in iteration order, with their row refs. */
  readBackRows: Array<{ val: Record<string, unknown>; ref: string | null }>;
  /** What evaluation.evaluate() returned. */
  summary: unknown;
}
