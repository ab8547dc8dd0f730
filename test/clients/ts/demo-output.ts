/** What test/clients/ts/trace-demo.ts writes to HEDDLE_DEMO_OUT, shared with the test that reads it. */

export const CONCURRENT_CALLS = 50;
export const FAILING_REASON = 'kaboom';

export interface RecordedExchange {
  method: string;
  path: string;
  /** JSON request body, or for multipart bodies `{multipart: fields}` (files as `{file, size, type}`). */
  request: unknown;
  /** `api` when the client sent Basic `api:<WANDB_API_KEY>`; `none` or `other` otherwise. */
  auth: string;
  status: number | null;
  /** Response body text (cut at 4,000 characters); null when no response arrived. */
  response: string | null;
  error?: string;
}

export interface DemoOutput {
  /** True once every op ran and the client's batch queue was flushed. */
  finished: boolean;
  exitCode: number | null;
  failure: string | null;
  parentResult: unknown;
  thrownMessage: string | null;
  squares: number[];
  /** Promise rejections nobody handled in time (the client's own failed writes), described. */
  unhandledRejections: string[];
  exchanges: RecordedExchange[];
}
