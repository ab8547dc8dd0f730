/**
 * Reads an OpenAI-style Server-Sent Events body (`data: {json}` lines, `data: [DONE]` at the end)
 * as the JSON values it carries. A body idle for `idleMs` fails with a timeout, so a provider that
 * stops mid-answer ends the run instead of holding it open.
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
  onIdle: () => void,
): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const timer = setTimeout(onIdle, idleMs);
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } finally {
        clearTimeout(timer);
      }
      if (next.done) break;
      pending += decoder.decode(next.value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const data = dataOf(line);
        if (data === null) continue;
        if (data === '[DONE]') return;
        yield JSON.parse(data);
      }
    }
    const last = dataOf(pending);
    if (last !== null && last !== '[DONE]') yield JSON.parse(last);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The payload of a `data:` line; null for comments, other fields and blank lines. */
function dataOf(line: string): string | null {
  const trimmed = line.replace(/\r$/, '');
  if (!trimmed.startsWith('data:')) return null;
  const data = trimmed.slice(5).trim();
  return data === '' ? null : data;
}
