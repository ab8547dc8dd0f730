/**
 * From `messages_and_choices` to training tokens (docs/spec/training.md §9 steps 1–5) for the built-in
 * byte policy: each history is cut after its last trainable item, rendered with the policy's chat
 * template where every trainable turn is a sentinel, and each sentinel is replaced by the turn's
 * sampled tokens (mask 1, old logprobs from the Choice). Everything else is context (mask 0, NaN).
 */
import { type PlainMessage, renderChat, toPlainMessage } from './policy/chat-render.js';
import { END_OF_TURN, SENTINEL, VOCAB_SIZE, encodeText, parseTokenId } from './policy/tokenizer.js';
import { TrainingContentError } from './trainer-port.js';

export interface TokenizedHistory {
  ids: number[];
  /** 1 on tokens that receive gradient (§9 step 4), 0 on context. */
  mask: number[];
  /** Sampler log-probs of trainable tokens; NaN where unknown (context, or no logprobs). */
  oldLogprobs: number[];
}

export interface TokenizedTrajectory {
  histories: TokenizedHistory[];
  /** Trainable tokens over all histories (the `N_i` of §10.2). */
  numTrainable: number;
}

export interface TokenizeOptions {
  allowTrainingWithoutLogprobs: boolean;
  /** Longest history the policy can train on (its context window). */
  maxTokens: number;
}

interface SampledTurn {
  ids: number[];
  logprobs: number[];
}

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function logprobEntries(item: Rec): unknown[] | null {
  const lp = item.logprobs;
  if (!isRecord(lp)) return null;
  if (Array.isArray(lp.content) && lp.content.length > 0) return lp.content;
  if (Array.isArray(lp.refusal) && lp.refusal.length > 0) return lp.refusal;
  return null;
}

/**
 * Tokens of one logprob entry: the id of `token_id:<n>`, else its bytes (§9 step 4 fallback). A
 * foreign multi-byte token cannot carry one log-prob per byte, so its bytes get NaN (ratio 1).
 */
function entryTokens(entry: unknown, out: SampledTurn): void {
  if (!isRecord(entry) || typeof entry.token !== 'string') return;
  const logprob = typeof entry.logprob === 'number' ? entry.logprob : NaN;
  const id = parseTokenId(entry.token);
  if (id !== null && id < VOCAB_SIZE && id !== SENTINEL) {
    out.ids.push(id);
    out.logprobs.push(logprob);
    return;
  }
  const bytes = Array.isArray(entry.bytes)
    ? entry.bytes.filter((b): b is number => Number.isInteger(b) && b >= 0 && b < 256)
    : encodeText(entry.token);
  for (const b of bytes) {
    out.ids.push(b);
    out.logprobs.push(bytes.length === 1 ? logprob : NaN);
  }
}

/** The sampled turn of a trainable item, or null when the item is not trainable (§5.6). */
function sampledTurn(item: unknown, allowWithoutLogprobs: boolean): SampledTurn | null {
  if (!isRecord(item)) return null;
  const isChoice = 'message' in item;
  const entries = isChoice ? logprobEntries(item) : null;
  if (entries) {
    const turn: SampledTurn = { ids: [], logprobs: [] };
    for (const e of entries) entryTokens(e, turn);
    return turn;
  }
  const message = isChoice ? toPlainMessage(item.message) : toPlainMessage(item);
  if (!allowWithoutLogprobs || message.role !== 'assistant') return null;
  const ids = encodeText(message.content);
  return { ids, logprobs: ids.map(() => NaN) };
}

function describe(where: string, n: number, max: number): string {
  return `${where} has ${n} tokens, more than the built-in policy's context window of ${max} tokens`;
}

/** Tokenizes one history (main conversation or an additional history); null if nothing is trainable. */
export function tokenizeHistory(
  items: unknown[],
  tools: unknown,
  opts: TokenizeOptions,
  where: string,
): TokenizedHistory | null {
  const turns = items.map((item) => sampledTurn(item, opts.allowTrainingWithoutLogprobs));
  let last = -1;
  turns.forEach((t, i) => {
    if (t) last = i;
  });
  if (last < 0) return null;
  const kept = items.slice(0, last + 1);
  const messages: PlainMessage[] = kept.map((item, i) => {
    const m = toPlainMessage(isRecord(item) && 'message' in item ? item.message : item);
    return turns[i] ? { ...m, role: 'assistant', sentinel: true } : m;
  });
  const template = renderChat(messages, tools, false);
  const samples = turns.slice(0, last + 1).filter((t): t is SampledTurn => t !== null);
  const out: TokenizedHistory = { ids: [], mask: [], oldLogprobs: [] };
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    if (template[i] !== SENTINEL) {
      out.ids.push(template[i]!);
      out.mask.push(0);
      out.oldLogprobs.push(NaN);
      continue;
    }
    // one sampled turn per sentinel in the template
    const s = samples[next++]!;
    out.ids.push(...s.ids);
    out.mask.push(...s.ids.map(() => 1));
    out.oldLogprobs.push(...s.logprobs);
    // §9 step 4: the template's end of turn duplicates one the sample already ends with.
    if (s.ids[s.ids.length - 1] === END_OF_TURN && template[i + 1] === END_OF_TURN) i++;
  }
  if (out.ids.length > opts.maxTokens) throw new TrainingContentError(describe(where, out.ids.length, opts.maxTokens));
  return out;
}

/**
 * Our choice: newer ART clients may send a trajectory as recorded HTTP exchanges instead of
 * `messages_and_choices` (`exchanges.chat_completions[]: {request, response}`; see
 * /work/notes/art-findings.md item 2). Each exchange becomes one history: the request's messages
 * followed by the response's first choice.
 */
function exchangeHistories(t: Rec): { items: unknown[]; tools: unknown }[] {
  const exchanges =
    isRecord(t.exchanges) && Array.isArray(t.exchanges.chat_completions) ? t.exchanges.chat_completions : [];
  return exchanges.filter(isRecord).map((e) => {
    const request = isRecord(e.request) ? e.request : {};
    const choices = isRecord(e.response) && Array.isArray(e.response.choices) ? e.response.choices : [];
    const messages = Array.isArray(request.messages) ? request.messages : [];
    return { items: choices.length > 0 ? [...messages, choices[0]] : messages, tools: request.tools };
  });
}

/** Tokenizes the main history and every additional history of a trajectory (§5.2, §9). */
export function tokenizeTrajectory(trajectory: unknown, opts: TokenizeOptions, where: string): TokenizedTrajectory {
  const t = isRecord(trajectory) ? trajectory : {};
  const histories: TokenizedHistory[] = [];
  const main = Array.isArray(t.messages_and_choices) ? t.messages_and_choices : [];
  const first = tokenizeHistory(main, t.tools, opts, where);
  if (first) histories.push(first);
  if (main.length === 0) {
    exchangeHistories(t).forEach((h, k) => {
      const tokenized = tokenizeHistory(h.items, h.tools, opts, `${where}, exchange ${k}`);
      if (tokenized) histories.push(tokenized);
    });
  }
  const extra = Array.isArray(t.additional_histories) ? t.additional_histories : [];
  extra.forEach((h, k) => {
    const hist = isRecord(h) ? h : {};
    const items = Array.isArray(hist.messages_and_choices) ? hist.messages_and_choices : [];
    const tokenized = tokenizeHistory(items, hist.tools, opts, `${where}, additional history ${k}`);
    if (tokenized) histories.push(tokenized);
  });
  const numTrainable = histories.reduce((n, h) => n + h.mask.reduce((a, b) => a + b, 0), 0);
  return { histories, numTrainable };
}
