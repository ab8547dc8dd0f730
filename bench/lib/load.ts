import http from 'node:http';

/**
 * The load generator: node:http with a keep-alive agent, a fixed number of requests and a fixed
 * number in flight. Targets loopback only.
 */

export interface Reply {
  status: number;
  bytes: number;
  /** Newline bytes seen (JSON Lines rows). */
  lines: number;
  /** The body as text when asked for (`keepBody`), or when the status is not 200. */
  text: string | null;
}

export class LoadClient {
  readonly #agent: http.Agent;
  readonly #base: URL;
  readonly #auth: string | null;
  readonly #contentType: string;

  constructor(baseUrl: string, apiKey: string | null, maxSockets: number, contentType = 'application/json') {
    this.#contentType = contentType;
    this.#base = new URL(baseUrl);
    if (this.#base.hostname !== '127.0.0.1')
      throw new Error(`the load generator only targets loopback, not ${baseUrl}`);
    this.#auth = apiKey === null ? null : `Basic ${Buffer.from(`api:${apiKey}`).toString('base64')}`;
    this.#agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** POSTs a body (JSON unless the client was made for another content type) and reads the whole answer (counting lines, keeping text only when asked). */
  post(path: string, body: Buffer | string, keepBody = false): Promise<Reply> {
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const headers: http.OutgoingHttpHeaders = { 'content-type': this.#contentType, 'content-length': payload.length };
    if (this.#auth) headers.authorization = this.#auth;
    return new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        { host: this.#base.hostname, port: this.#base.port, path, method: 'POST', agent: this.#agent, headers },
        (res) => {
          const keep = keepBody || res.statusCode !== 200;
          const chunks: Buffer[] = [];
          let bytes = 0;
          let lines = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
            if (keep) chunks.push(chunk);
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              bytes,
              lines,
              text: keep ? Buffer.concat(chunks).toString('utf8') : null,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** As post, but throws unless the status is 200. */
  async postOk(path: string, body: Buffer | string, keepBody = false): Promise<Reply> {
    const reply = await this.post(path, body, keepBody);
    if (reply.status !== 200) throw new Error(`POST ${path} answered ${reply.status}: ${reply.text?.slice(0, 500)}`);
    return reply;
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** Runs `task(0..count-1)` with at most `concurrency` in flight; rejects on the first failure. */
export async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed: unknown = null;
  const worker = async (): Promise<void> => {
    while (failed === null && next < count) {
      const index = next;
      next += 1;
      try {
        await task(index);
      } catch (error) {
        failed ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failed !== null) throw failed;
}

/** Wall time of `fn` in seconds, with this process's CPU seconds over the same span. */
export async function timed(fn: () => Promise<void>): Promise<{ seconds: number; clientCpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { seconds, clientCpu: (cpu.user + cpu.system) / 1e6 };
}

/** The q-quantile (0..1) of the values, nearest-rank. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
