import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  OpenAiCompatibleProvider,
  retryAfterMs,
} from '../../../src/services/evaluations/providers/openai-compatible.js';
import { ProviderError, redact } from '../../../src/services/evaluations/providers/provider-error.js';

/** The OpenAI-compatible adapter's retry policy (docs/spec/evaluations.md §6.3 "Providers"), over a scripted fetch. */

const KEY = 'sk-unit-SECRET-42';

function scripted(answers: Array<() => Response | Promise<Response>>) {
  const seen: Array<{ url: string; headers: Record<string, string>; body: Record<string, unknown> }> = [];
  const impl = (async (url: string, init: RequestInit) => {
    seen.push({ url, headers: init.headers as Record<string, string>, body: JSON.parse(String(init.body)) });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  }) as unknown as typeof fetch;
  return { impl, seen };
}

const provider = (impl: typeof fetch, maxRetries = 2) =>
  new OpenAiCompatibleProvider({
    name: 'unit',
    baseUrl: 'http://provider.test/v1',
    apiKey: KEY,
    extraHeaders: { 'x-org': 'o1' },
    timeoutMs: 1000,
    maxRetries,
    backoffMs: 1,
    fetch: impl,
  });

const ok = () => new Response('{"choices":[]}', { status: 200 });

test('429 and 5xx are retried (Retry-After honoured); the request carries the key and extra headers', async () => {
  const { impl, seen } = scripted([
    () => new Response('busy', { status: 429, headers: { 'retry-after': '0' } }),
    () => new Response('oops', { status: 503 }),
    ok,
  ]);
  assert.deepEqual(await provider(impl).complete('m', { messages: [] }), { choices: [] });
  assert.equal(seen.length, 3);
  assert.equal(seen[0]!.url, 'http://provider.test/v1/chat/completions');
  assert.equal(seen[0]!.headers.authorization, `Bearer ${KEY}`);
  assert.equal(seen[0]!.headers['x-org'], 'o1');
  assert.equal(seen[0]!.body.model, 'm');
});

test('other 4xx fail at once; retries are bounded; error texts never carry the key', async () => {
  const echo = () => new Response(`invalid key ${KEY}`, { status: 401 });
  const first = scripted([echo, ok]);
  await assert.rejects(provider(first.impl).complete('m', {}), (error: ProviderError) => {
    assert.equal(error.status, 401);
    assert.ok(!error.message.includes(KEY));
    assert.match(error.message, /answered 401: invalid key \[redacted\]/);
    return true;
  });
  assert.equal(first.seen.length, 1);
  const down = scripted([0, 1, 2].map(() => () => new Response('', { status: 500 })));
  await assert.rejects(provider(down.impl, 2).complete('m', {}), /answered 500/);
  assert.equal(down.seen.length, 3);
  const network = scripted([() => Promise.reject(new Error(`connect failed with ${KEY}`))]);
  await assert.rejects(provider(network.impl, 0).complete('m', {}), (error: Error) => !error.message.includes(KEY));
});

test('a hung provider times out per attempt', async () => {
  const hang = (async (_url: string, init: RequestInit) =>
    new Promise((_resolve, reject) =>
      init.signal!.addEventListener('abort', () => reject(init.signal!.reason)),
    )) as unknown as typeof fetch;
  const p = new OpenAiCompatibleProvider({
    name: 'slow',
    baseUrl: 'http://x',
    apiKey: null,
    timeoutMs: 50,
    maxRetries: 1,
    backoffMs: 1,
    fetch: hang,
  });
  await assert.rejects(p.complete('m', {}), /Provider slow request failed: timed out after 50 ms/);
});

test('retryAfterMs reads seconds and HTTP dates; redact replaces every occurrence', () => {
  assert.equal(retryAfterMs('2'), 2000);
  assert.equal(retryAfterMs(null), null);
  assert.equal(retryAfterMs('soon'), null);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6_000);
  assert.equal(redact('a SECRET b SECRET', ['SECRET', undefined, 'x']), 'a [redacted] b [redacted]');
  assert.equal(redact('abc', ['abc']), 'abc', 'values under 4 characters are not secrets');
});
