/**
 * Shared by the TS client scripts under test/clients/ts/ (run as child processes): records every
 * HTTP exchange the official client makes (the global fetch is wrapped and passed through
 * unchanged) and writes the script's result file on exit, also when the client itself calls
 * process.exit, so a test can name an endpoint the server is missing or rejects.
 */
import fs from 'node:fs';
import type { RecordedExchange } from './demo-output.js';

/** Fields every script result carries; scripts add their own. */
export interface ScriptOutputBase {
  finished: boolean;
  exitCode: number | null;
  failure: string | null;
  unhandledRejections: string[];
  exchanges: RecordedExchange[];
}

/**
 * Starts recording into `output.exchanges`, writes `output` to HEDDLE_DEMO_OUT on exit and fails
 * the run after HEDDLE_DEMO_DEADLINE_MS. Returns a function that cancels the deadline.
 */
export function setUpScript<T extends ScriptOutputBase>(output: T): () => void {
  const outFile = process.env.HEDDLE_DEMO_OUT;
  if (!outFile) throw new Error('HEDDLE_DEMO_OUT must name the result file');
  process.on('exit', (code) => {
    output.exitCode = code;
    fs.writeFileSync(outFile, JSON.stringify(output, null, 2));
  });
  // The client starts writes it awaits only later; a quick failure would otherwise end the process.
  process.on('unhandledRejection', (reason) => {
    output.unhandledRejections.push(describeError(reason));
  });
  recordFetches(output.exchanges);
  const deadlineMs = Number(process.env.HEDDLE_DEMO_DEADLINE_MS ?? 90_000);
  const deadline = setTimeout(() => {
    output.failure = `deadline of ${deadlineMs} ms passed before the client finished`;
    process.exit(3);
  }, deadlineMs);
  return () => clearTimeout(deadline);
}

function recordFetches(log: RecordedExchange[]): void {
  const original = globalThis.fetch;
  const expectedAuth = `Basic ${Buffer.from(`api:${process.env.WANDB_API_KEY ?? ''}`).toString('base64')}`;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const auth = new Headers(init?.headers).get('authorization');
    const entry: RecordedExchange = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      request: describeBody(init?.body),
      auth: auth === expectedAuth ? 'api' : auth === null ? 'none' : 'other',
      status: null,
      response: null,
    };
    log.push(entry);
    try {
      const response = await original(input, init);
      entry.status = response.status;
      // Whole bodies: the digest test needs every row digest of /table/create and /table/query.
      entry.response = await response.clone().text();
      return response;
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  };
}

/** JSON bodies parsed; the raw text is kept too (under `raw`) so tests can see the exact bytes sent. */
function describeBody(body: RequestInit['body'] | undefined): unknown {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') {
    try {
      return { json: JSON.parse(body) as unknown, raw: body };
    } catch {
      return { raw: body };
    }
  }
  if (body instanceof FormData) {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of body.entries()) {
      fields[name] = typeof value === 'string' ? value : { file: value.name, size: value.size, type: value.type };
    }
    return { multipart: fields };
  }
  return `<${Object.prototype.toString.call(body)}>`;
}

/** The client throws its Response object (with the parsed error body in `.error`) on HTTP errors. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  if (error instanceof Response) {
    const body = (error as Response & { error?: unknown }).error;
    return `HTTP ${error.status} from ${error.url}: ${JSON.stringify(body)}`;
  }
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
