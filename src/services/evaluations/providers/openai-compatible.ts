import { setTimeout as sleep } from 'node:timers/promises';
import { completionChunks } from '../../../domain/completions/completion-chunks.js';
import { readEventStream } from './event-stream.js';
import { ProviderError, redact } from './provider-error.js';

/**
 * An OpenAI-compatible chat-completions client (docs/spec/evaluations.md §6.3 "Providers"): one
 * `POST <base>/chat/completions` per request, a timeout per attempt so a hung provider fails the
 * row, and bounded retries with exponential backoff on 429, 5xx and network errors (honouring
 * `Retry-After`); other 4xx answers fail at once.
 */

export interface ChatProvider {
  /** Sends one chat-completions body for `model`; resolves with the parsed response body. */
  complete(model: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  /**
   * Sends it with `stream: true`; yields the `chat.completion.chunk`s as they come. A provider
   * without it is streamed as its whole answer (completion-chunks.ts).
   */
  stream?(model: string, body: Record<string, unknown>, signal?: AbortSignal): AsyncIterable<unknown>;
}

export interface OpenAiCompatibleOptions {
  /** Shown in errors (`openai`, a Provider object's name). */
  name: string;
  baseUrl: string;
  apiKey: string | null;
  extraHeaders?: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxRetries: number;
  /** First backoff; doubled per retry, capped at 8 s. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 30_000;

/** `Retry-After` as seconds or an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const retryable = (status: number): boolean => status === 429 || status >= 500;

export class OpenAiCompatibleProvider implements ChatProvider {
  readonly #opts: OpenAiCompatibleOptions;
  readonly #fetch: typeof fetch;

  constructor(opts: OpenAiCompatibleOptions) {
    this.#opts = opts;
    this.#fetch = opts.fetch ?? fetch;
  }

  #clean(text: string): string {
    return redact(text, [this.#opts.apiKey ?? undefined, ...Object.values(this.#opts.extraHeaders ?? {})]);
  }

  async complete(model: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const { name, maxRetries } = this.#opts;
    let lastError: ProviderError | null = null;
    for (let attempt = 0; attempt <= maxRetries; attempt += 1) {
      signal?.throwIfAborted();
      const result = await this.#attempt(model, body, signal);
      if (result.ok) return result.body;
      lastError = result.error;
      if (!result.retry || attempt === maxRetries) break;
      const backoff = Math.min(MAX_BACKOFF_MS, (this.#opts.backoffMs ?? 250) * 2 ** attempt);
      await sleep(Math.min(MAX_RETRY_AFTER_MS, result.retryAfterMs ?? backoff), undefined, { signal });
    }
    throw lastError ?? new ProviderError(`Provider ${name} failed`);
  }

  /**
   * One streamed request (no retries once it is sent: a partial answer cannot be replayed); the
   * timeout applies to the answer's start and then to every pause between chunks. A provider that
   * answers plain JSON instead is passed on as chunks.
   */
  async *stream(model: string, body: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<unknown> {
    const { name, baseUrl, timeoutMs } = this.#opts;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: this.#headers(),
        body: JSON.stringify({ ...body, model, stream: true, stream_options: { include_usage: true } }),
        signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
      });
    } catch (error) {
      signal?.throwIfAborted();
      throw new ProviderError(`Provider ${name} request failed: ${this.#failure(error, timeout.signal)}`);
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) {
      const detail = this.#clean((await res.text()).slice(0, 500));
      throw new ProviderError(`Provider ${name} answered ${res.status}: ${detail}`, res.status);
    }
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream') || res.body === null) {
      yield* completionChunks(JSON.parse(await res.text()));
      return;
    }
    try {
      yield* readEventStream(res.body, timeoutMs, () => timeout.abort());
    } catch (error) {
      signal?.throwIfAborted();
      throw new ProviderError(`Provider ${name} stream failed: ${this.#failure(error, timeout.signal)}`);
    }
  }

  #headers(): Record<string, string> {
    const { apiKey, extraHeaders } = this.#opts;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
    if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
    return headers;
  }

  #failure(error: unknown, timedOut: AbortSignal): string {
    if (timedOut.aborted) return `timed out after ${this.#opts.timeoutMs} ms`;
    return this.#clean(error instanceof Error ? error.message : String(error));
  }

  async #attempt(
    model: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<
    { ok: true; body: unknown } | { ok: false; error: ProviderError; retry: boolean; retryAfterMs: number | null }
  > {
    const { name, baseUrl, timeoutMs } = this.#opts;
    // a referenced timer (AbortSignal.timeout's is not), so a pending request keeps the process alive
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const headers = this.#headers();
    let res: Response;
    let text: string;
    try {
      res = await this.#fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...body, model }),
        signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
      });
      text = await res.text();
    } catch (error) {
      signal?.throwIfAborted();
      const reason = this.#failure(error, timeout.signal);
      return {
        ok: false,
        error: new ProviderError(`Provider ${name} request failed: ${reason}`),
        retry: true,
        retryAfterMs: null,
      };
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) {
      const detail = this.#clean(text.slice(0, 500));
      return {
        ok: false,
        error: new ProviderError(`Provider ${name} answered ${res.status}: ${detail}`, res.status),
        retry: retryable(res.status),
        retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
      };
    }
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      const detail = this.#clean(text.slice(0, 200));
      return {
        ok: false,
        error: new ProviderError(`Provider ${name} answered non-JSON: ${detail}`),
        retry: false,
        retryAfterMs: null,
      };
    }
  }
}
