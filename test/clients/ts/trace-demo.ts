/**
 * Drives the official TypeScript client (npm `weave`, pinned in package.json) against a Heddle server.
 * Run by test/clients/ts-client.test.ts as a child process:
 *
 *   WF_TRACE_SERVER_URL=http://127.0.0.1:<port> WANDB_API_KEY=<key> HEDDLE_DEMO_OUT=<file.json> \
 *     node --import tsx test/clients/ts/trace-demo.ts
 *
 * with a temporary working directory, because the client appends failures to `./weaveErrors.log`.
 *
 * It traces: parent → child → grandchild (nested ops), an op that throws (caught here), and 50
 * concurrent calls of one op (Promise.all). Then it waits until the client has flushed its batch
 * queue. Every HTTP exchange the client makes is recorded (the global fetch is wrapped and passed
 * through unchanged) and written with the op results to HEDDLE_DEMO_OUT, also when the client
 * itself calls process.exit, so the test can name an endpoint the server is missing or rejects.
 */
import fs from 'node:fs';
import * as weave from 'weave';
import { CONCURRENT_CALLS, FAILING_REASON, type DemoOutput, type RecordedExchange } from './demo-output.js';

const outFile = process.env.HEDDLE_DEMO_OUT;
if (!outFile) throw new Error('HEDDLE_DEMO_OUT must name the result file');

const output: DemoOutput = {
  finished: false,
  exitCode: null,
  failure: null,
  parentResult: null,
  thrownMessage: null,
  squares: [],
  unhandledRejections: [],
  exchanges: [],
};
process.on('exit', (code) => {
  output.exitCode = code;
  fs.writeFileSync(outFile, JSON.stringify(output, null, 2));
});

// The client starts a call's write before running the op and awaits it only when the op ends; if
// that write fails quickly, Node sees a rejection with no handler yet and would end the process.
// Record it instead, so the run goes on and the test can show every failing exchange.
process.on('unhandledRejection', (reason) => {
  output.unhandledRejections.push(describeError(reason));
});

recordFetches(output.exchanges);

/** Fails the run if the client is still busy after this long (it retries 5xx/429 with backoff). */
const DEADLINE_MS = Number(process.env.HEDDLE_DEMO_DEADLINE_MS ?? 90_000);
const deadline = setTimeout(() => {
  output.failure = `deadline of ${DEADLINE_MS} ms passed before the client finished`;
  process.exit(3);
}, DEADLINE_MS);

try {
  const client = await weave.init('acme/demo', { printCallLink: false });

  const grandchild = weave.op(async function grandchild(n: number) {
    return n * 2;
  });
  const child = weave.op(async function child(n: number) {
    return (await grandchild(n)) + 1;
  });
  // Named parameters: the inputs are recorded as {x, label} instead of {arg0, arg1}.
  const parent = weave.op(
    async function parent(x: number, label: string) {
      return { result: await child(x), label };
    },
    { parameterNames: ['x', 'label'] },
  );
  const failing = weave.op(async function failing(reason: string) {
    throw new Error(`boom: ${reason}`);
  });
  const square = weave.op(async function square(n: number) {
    await new Promise((resolve) => setTimeout(resolve, (n * 7) % 13));
    return n * n;
  });

  output.parentResult = await parent(5, 'nested');
  try {
    await failing(FAILING_REASON);
  } catch (error) {
    output.thrownMessage = error instanceof Error ? error.message : String(error);
  }
  output.squares = await Promise.all(Array.from({ length: CONCURRENT_CALLS }, (_, i) => square(i)));

  await client.waitForBatchProcessing();
  output.finished = true;
} catch (error) {
  output.failure = describeError(error);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
}

/** Wraps the global fetch (which the client calls at request time) to record every exchange. */
function recordFetches(log: RecordedExchange[]): void {
  const original = globalThis.fetch;
  const expectedAuth = `Basic ${Buffer.from(`api:${process.env.WANDB_API_KEY ?? ''}`).toString('base64')}`;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers);
    const auth = headers.get('authorization');
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
      entry.response = (await response.clone().text()).slice(0, 4000);
      return response;
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  };
}

function describeBody(body: RequestInit['body'] | undefined): unknown {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
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
function describeError(error: unknown): string {
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
