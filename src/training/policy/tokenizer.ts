/**
 * Byte-level tokenizer of the built-in policy: ids 0–255 are the bytes of UTF-8 text, followed by a
 * few special ids for the chat rendering (chat-render.ts). Completions are reported with
 * `token_id:<n>` token strings (docs/spec/training.md §5.5), so training reads exact ids back.
 */

export const BOS = 256;
export const SYSTEM = 257;
export const USER = 258;
export const ASSISTANT = 259;
export const TOOL = 260;
/** End of a turn; a completion that samples it finishes with `stop`. */
export const END_OF_TURN = 261;
/** Marks the tool definitions block. */
export const TOOLS = 262;
/** Placeholder for a trainable turn during rendering (§9.3); never sampled, never trained. */
export const SENTINEL = 263;
export const VOCAB_SIZE = 264;

const SPECIAL_NAMES: Record<number, string> = {
  [BOS]: '<|bos|>',
  [SYSTEM]: '<|system|>',
  [USER]: '<|user|>',
  [ASSISTANT]: '<|assistant|>',
  [TOOL]: '<|tool|>',
  [END_OF_TURN]: '<|end|>',
  [TOOLS]: '<|tools|>',
  [SENTINEL]: '<|sentinel|>',
};

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

export function encodeText(text: string): number[] {
  return Array.from(encoder.encode(text));
}

/** Decodes byte ids (special ids are skipped); invalid UTF-8 becomes U+FFFD. */
export function decodeIds(ids: readonly number[]): string {
  return decoder.decode(Uint8Array.from(ids.filter((id) => id < 256)));
}

export function tokenString(id: number): string {
  return `token_id:${id}`;
}

/** Parses `token_id:<n>` (§5.5); null for any other token string. */
export function parseTokenId(token: string): number | null {
  const m = /^token_id:(\d+)$/.exec(token);
  return m ? Number(m[1]) : null;
}

/** The bytes a token stands for (empty for special ids), as reported in `logprobs.content[].bytes`. */
export function tokenBytes(id: number): number[] {
  return id < 256 ? [id] : [];
}

export function specialName(id: number): string | undefined {
  return SPECIAL_NAMES[id];
}
