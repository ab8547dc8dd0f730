/** Thrown when a JSON Lines stream ends in the middle of a line (calls spec §4.7: a truncated response). */
export class TruncatedStreamError extends Error {
  constructor(readonly tail: string) {
    super('The server closed the stream in the middle of a record');
  }
}

/**
 * Splits a text stream into complete lines. Each chunk is appended to the unfinished tail of the
 * previous ones and only text up to the last newline is released, so a record split across chunks
 * (or a multi-byte character split across byte chunks, handled by TextDecoderStream) is never lost.
 * A non-empty tail at the end of the stream is an error.
 */
export async function* readLines(text: ReadableStream<string>): AsyncGenerator<string> {
  const reader = text.getReader();
  let tail = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      tail += value;
      let nl = tail.indexOf('\n');
      if (nl < 0) continue;
      let start = 0;
      while (nl >= 0) {
        const line = tail.slice(start, nl);
        if (line.trim() !== '') yield line;
        start = nl + 1;
        nl = tail.indexOf('\n', start);
      }
      tail = tail.slice(start);
    }
  } finally {
    reader.releaseLock();
  }
  if (tail.trim() !== '') throw new TruncatedStreamError(tail);
}

/** How long parsing may hold the main thread before it yields to rendering and input. */
const SLICE_MS = 40;

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Parses a JSON Lines byte stream (UTF-8) into records. A stream that arrives faster than it parses
 * (tens of megabytes of a big trace from a local server) would otherwise be parsed in one task and
 * freeze the page: after every SLICE_MS of work it waits for the next task.
 */
export async function* readJsonl<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const text = body.pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>);
  let sliceStart = performance.now();
  for await (const line of readLines(text)) {
    yield JSON.parse(line) as T;
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTask();
      sliceStart = performance.now();
    }
  }
}
