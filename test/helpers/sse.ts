/**
 * A Server-Sent Events client for tests: reads a `text/event-stream` response with fetch and
 * parses its events (the browser's EventSource rules, minus reconnection).
 */

export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Every non-event line block seen (retry, comments), in order. */
  fields: string[];
  /** Resolves with the next event, or rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Events received so far and not yet taken. */
  pending(): SseEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const queue: SseEvent[] = [];
  const fields: string[] = [];
  const waiter: { wake: (() => void) | null } = { wake: null };
  let buffer = '';
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: SseEvent = { event: 'message', id: null, data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const name = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (name === 'event') event.event = value;
            else if (name === 'id') event.id = value;
            else if (name === 'data') {
              event.data = event.data === '' ? value : `${event.data}\n${value}`;
              isEvent = true;
            }
          }
          if (isEvent) queue.push(event);
          else fields.push(block);
          waiter.wake?.();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      waiter.wake?.();
    }
  })();
  let finished = false;
  void ended.then(() => {
    finished = true;
  });
  return {
    status: res.status,
    headers: res.headers,
    fields,
    pending: () => queue.splice(0),
    ended,
    close: () => abort.abort(),
    next: async (timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0) {
        if (finished) throw new Error('the stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiter.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiter.wake = null;
      }
      return queue.shift()!;
    },
  };
}
