/**
 * Sampling parameters of a chat completion request (OpenAI names) and the token choice itself:
 * temperature (0 = greedy), nucleus `top_p`, seeded randomness. Only byte tokens and end of turn
 * can be sampled; the template's other special ids never appear in a completion.
 */
import { END_OF_TURN } from '../policy/tokenizer.js';

export interface SamplingParams {
  n: number;
  temperature: number;
  topP: number;
  seed: number;
  maxTokens: number;
  stop: string[];
  logprobs: boolean;
  topLogprobs: number;
  returnTokenIds: boolean;
}

/** Our choice: the default completion budget of the built-in policy. */
export const DEFAULT_MAX_TOKENS = 64;
const MAX_N = 64;

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function samplingParams(r: Record<string, unknown>): SamplingParams {
  const stop =
    typeof r.stop === 'string'
      ? [r.stop]
      : Array.isArray(r.stop)
        ? r.stop.filter((s): s is string => typeof s === 'string' && s !== '')
        : [];
  return {
    n: Math.min(MAX_N, Math.max(1, Math.floor(num(r.n, 1)))),
    temperature: Math.max(0, num(r.temperature, 1)),
    topP: Math.min(1, Math.max(0, num(r.top_p, 1))),
    seed: Math.floor(num(r.seed, Math.random() * 2 ** 32)),
    maxTokens: Math.max(0, Math.floor(num(r.max_completion_tokens, num(r.max_tokens, DEFAULT_MAX_TOKENS)))),
    stop,
    logprobs: r.logprobs === true,
    topLogprobs: Math.min(20, Math.max(0, Math.floor(num(r.top_logprobs, 0)))),
    returnTokenIds: r.return_token_ids === true,
  };
}

const sampleable = (id: number): boolean => id < 256 || id === END_OF_TURN;

/** Picks the next token from full-vocabulary log-probs. */
export function pickToken(logprobs: Float32Array, p: SamplingParams, random: () => number): number {
  const ids: number[] = [];
  for (let i = 0; i < logprobs.length; i++) if (sampleable(i)) ids.push(i);
  if (p.temperature === 0) return ids.reduce((best, i) => (logprobs[i]! > logprobs[best]! ? i : best), ids[0]!);
  const max = Math.max(...ids.map((i) => logprobs[i]!));
  let weights = ids.map((i) => Math.exp((logprobs[i]! - max) / p.temperature));
  let total = weights.reduce((a, b) => a + b, 0);
  let pool = ids;
  if (p.topP < 1) {
    const order = ids.map((_, k) => k).sort((a, b) => weights[b]! - weights[a]!);
    const kept: number[] = [];
    let mass = 0;
    for (const k of order) {
      kept.push(k);
      mass += weights[k]! / total;
      if (mass >= p.topP) break;
    }
    pool = kept.map((k) => ids[k]!);
    weights = kept.map((k) => weights[k]!);
    total = weights.reduce((a, b) => a + b, 0);
  }
  let u = random() * total;
  for (let k = 0; k < pool.length; k++) {
    u -= weights[k]!;
    if (u <= 0) return pool[k]!;
  }
  return pool[pool.length - 1]!;
}
