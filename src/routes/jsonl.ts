import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** Lines are grouped into chunks of about this many characters before they are written. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Sends a body the service has already serialized to JSON (large values are written as they are
 * stored, never parsed and re-serialized). The route's response schema still documents its shape;
 * Fastify sends a string as it is, so the plain reply type is the honest one here.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json').send(json);
}

/**
 * Sends JSON Lines as they are produced. The first line is pulled before the status is sent, so
 * a failure to start the query still answers with a proper error; later lines flow with
 * backpressure and are never collected in full.
 */
export async function sendJsonl(reply: FastifyReply, lines: AsyncIterable<string>): Promise<FastifyReply> {
  return sendLines(reply, lines, 'application/jsonl');
}

/**
 * As sendJsonl, for lines of any text type (CSV records in `/calls/export`); `headers` are set only
 * once the first line is there, so an error answer never carries them (an attachment disposition).
 * Lines are written in chunks of `bufferChars`; 1 writes each the moment it is produced.
 */
export async function sendLines(
  reply: FastifyReply,
  lines: AsyncIterable<string>,
  contentType: string,
  headers: Record<string, string> = {},
  bufferChars = CHUNK_CHARS,
): Promise<FastifyReply> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  reply.type(contentType).headers(headers);
  if (first.done) return reply.send('');
  const head = first.value;
  async function* chunks(): AsyncGenerator<string> {
    let buffer = head;
    try {
      for (;;) {
        if (buffer.length >= bufferChars) {
          yield buffer;
          buffer = '';
        }
        const next = await iterator.next();
        if (next.done) break;
        buffer += next.value;
      }
      if (buffer !== '') yield buffer;
    } finally {
      await iterator.return?.();
    }
  }
  return reply.send(Readable.from(chunks(), { objectMode: false }));
}

/** As sendJsonl, but each line is written the moment it is produced (a streamed completion's chunks). */
export function sendJsonlLive(reply: FastifyReply, lines: AsyncIterable<string>): Promise<FastifyReply> {
  return sendLines(reply, lines, 'application/jsonl', {}, 1);
}
