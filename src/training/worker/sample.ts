/**
 * Chat completion from the built-in policy (docs/spec/training.md §4.10): renders the prompt with the
 * policy's template, samples bytes until end of turn, `max_tokens` or a stop string, and answers in
 * the OpenAI shape (minus id/created/model). Reported log-probs are those of the raw policy
 * (temperature 1, before top_p), as vLLM reports them by default, so they are the "old" log-probs
 * the trainer compares against (§10.3).
 */
import { seededRandom } from '../random.js';
import { renderChat, toPlainMessage } from '../policy/chat-render.js';
import { disposeKvCache, emptyKvCache } from '../policy/model.js';
import type { TfPolicy } from '../policy/tf-policy.js';
import { END_OF_TURN, decodeIds, tokenBytes, tokenString } from '../policy/tokenizer.js';
import { type SamplingParams, pickToken, samplingParams } from './sampling-params.js';

interface Sequence {
  ids: number[];
  entries: Record<string, unknown>[];
  finish: 'stop' | 'length' | null;
  content: string;
}

function logprobEntry(logprobs: Float32Array, id: number, topK: number): Record<string, unknown> {
  const top: Record<string, unknown>[] = [];
  if (topK > 0) {
    const order = Array.from(logprobs.keys())
      .sort((a, b) => logprobs[b]! - logprobs[a]!)
      .slice(0, topK);
    for (const t of order) top.push({ token: tokenString(t), logprob: logprobs[t], bytes: tokenBytes(t) });
  }
  return { token: tokenString(id), logprob: logprobs[id], bytes: tokenBytes(id), top_logprobs: top };
}

/** Stops a sequence on end of turn, a stop string, the token budget or the context window. */
function advance(seq: Sequence, id: number, p: SamplingParams, room: number): void {
  if (id === END_OF_TURN) {
    seq.finish = 'stop';
    return;
  }
  seq.content = decodeIds(seq.ids);
  const hits = p.stop.map((s) => seq.content.indexOf(s)).filter((i) => i >= 0);
  if (hits.length > 0) {
    seq.content = seq.content.slice(0, Math.min(...hits));
    seq.finish = 'stop';
  } else if (seq.ids.length >= p.maxTokens || room <= 0) {
    seq.finish = 'length';
  }
}

/** Samples `p.n` continuations of the prompt in lockstep, with a KV cache (one new token per step). */
function generate(policy: TfPolicy, prompt: number[], p: SamplingParams): Sequence[] {
  const random = seededRandom(p.seed);
  const seqs: Sequence[] = Array.from({ length: p.n }, () => ({ ids: [], entries: [], finish: null, content: '' }));
  if (p.maxTokens === 0) for (const s of seqs) s.finish = 'length';
  const cache = emptyKvCache(policy.config, p.n);
  try {
    const first = policy.prefill(prompt, cache);
    let logprobs = seqs.map(() => first);
    for (let step = 0; seqs.some((s) => s.finish === null); step++) {
      if (step > 0)
        logprobs = policy.decode(
          seqs.map((s) => s.ids[s.ids.length - 1] ?? END_OF_TURN),
          prompt.length + step - 1,
          cache,
        );
      seqs.forEach((s, b) => {
        if (s.finish !== null) return;
        const id = pickToken(logprobs[b]!, p, random);
        s.ids.push(id);
        if (p.logprobs) s.entries.push(logprobEntry(logprobs[b]!, id, p.topLogprobs));
        advance(s, id, p, policy.config.context - prompt.length - s.ids.length);
      });
    }
  } finally {
    disposeKvCache(cache);
  }
  return seqs;
}

/** The chat.completion body for `request`, without `id`, `created` and `model`. */
export function completeChat(policy: TfPolicy, request: Record<string, unknown>): Record<string, unknown> {
  const p = samplingParams(request);
  const messages = (Array.isArray(request.messages) ? request.messages : []).map(toPlainMessage);
  const full = renderChat(messages, request.tools, true);
  // Our choice: a prompt longer than the context window keeps its newest tokens (room for ≥ 1 token).
  const prompt = full.slice(Math.max(0, full.length - (policy.config.context - 1)));
  const seqs = generate(policy, prompt, p);
  const choices = seqs.map((s, index) => ({
    index,
    message: { role: 'assistant', content: s.content, refusal: null, tool_calls: null },
    finish_reason: s.finish,
    logprobs: p.logprobs ? { content: s.entries, refusal: null } : null,
    ...(p.returnTokenIds ? { token_ids: s.ids, prompt_token_ids: prompt } : {}),
  }));
  const completionTokens = seqs.reduce((n, s) => n + s.ids.length, 0);
  return {
    object: 'chat.completion',
    choices,
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: completionTokens,
      total_tokens: prompt.length + completionTokens,
    },
    ...(p.returnTokenIds ? { prompt_token_ids: prompt } : {}),
  };
}
