import { isRecord, type JsonRecord } from '../eval-results/types.js';

/**
 * Streamed chat completions (`/completions/create_stream`): folding OpenAI `chat.completion.chunk`s
 * back into one completion (what the recorded call keeps as its output and usage), and a provider
 * that cannot stream answering as the same chunks.
 */

interface FoldedChoice extends JsonRecord {
  index: number;
  message: JsonRecord & { role: string; content: string };
  finish_reason: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function foldToolCalls(message: JsonRecord, deltas: unknown): void {
  if (!Array.isArray(deltas)) return;
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as JsonRecord[]) : [];
  for (const delta of deltas) {
    if (!isRecord(delta)) continue;
    const index = typeof delta.index === 'number' ? delta.index : calls.length;
    const call = (calls[index] ??= { id: null, type: 'function', function: { name: '', arguments: '' } });
    if (typeof delta.id === 'string') call.id = delta.id;
    if (typeof delta.type === 'string') call.type = delta.type;
    const fn = call.function as JsonRecord;
    if (isRecord(delta.function)) {
      fn.name = text(fn.name) + text(delta.function.name);
      fn.arguments = text(fn.arguments) + text(delta.function.arguments);
    }
  }
  message.tool_calls = calls;
}

/** Folds one chunk into `folded` (a `chat.completion` being built); returns it. */
export function foldChunk(folded: JsonRecord, chunk: unknown): JsonRecord {
  if (!isRecord(chunk)) return folded;
  for (const key of ['id', 'created', 'model', 'system_fingerprint'])
    if (chunk[key] !== undefined && chunk[key] !== null) folded[key] = chunk[key];
  folded.object = 'chat.completion';
  if (isRecord(chunk.usage)) folded.usage = chunk.usage;
  if (!Array.isArray(chunk.choices)) return folded;
  const choices = (folded.choices ??= []) as FoldedChoice[];
  for (const choice of chunk.choices) {
    if (!isRecord(choice)) continue;
    const index = typeof choice.index === 'number' ? choice.index : 0;
    const folding = (choices[index] ??= {
      index,
      message: { role: 'assistant', content: '' },
      finish_reason: null,
    });
    const delta = isRecord(choice.delta) ? choice.delta : isRecord(choice.message) ? choice.message : {};
    if (typeof delta.role === 'string') folding.message.role = delta.role;
    folding.message.content += text(delta.content);
    foldToolCalls(folding.message, delta.tool_calls);
    if (choice.finish_reason !== undefined && choice.finish_reason !== null)
      folding.finish_reason = choice.finish_reason;
  }
  return folded;
}

/** A whole completion as the chunks a streaming provider would have sent: one per choice, then the usage. */
export function completionChunks(completion: unknown): JsonRecord[] {
  if (!isRecord(completion)) return [];
  const head: JsonRecord = { object: 'chat.completion.chunk' };
  for (const key of ['id', 'created', 'model']) if (completion[key] !== undefined) head[key] = completion[key];
  const chunks: JsonRecord[] = [];
  const choices = Array.isArray(completion.choices) ? completion.choices : [];
  choices.forEach((choice, position) => {
    if (!isRecord(choice)) return;
    const message = isRecord(choice.message) ? choice.message : {};
    const delta: JsonRecord = { role: message.role ?? 'assistant', content: message.content ?? '' };
    if (Array.isArray(message.tool_calls))
      delta.tool_calls = message.tool_calls.map((call, index) => (isRecord(call) ? { index, ...call } : call));
    const index = typeof choice.index === 'number' ? choice.index : position;
    chunks.push({ ...head, choices: [{ index, delta, finish_reason: choice.finish_reason ?? 'stop' }] });
  });
  if (isRecord(completion.usage)) chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}
