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
 */
export async function sendLines(
  reply: FastifyReply,
  lines: AsyncIterable<string>,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<FastifyReply> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  reply.type(contentType).headers(headers);
  if (first.done) return reply.send('');
  const head = first.value;
  async function* chunks(): AsyncGenerator<string> {
    let buffer = head;
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        buffer += next.value;
        if (buffer.length >= CHUNK_CHARS) {
          yield buffer;
          buffer = '';
        }
      }
      if (buffer !== '') yield buffer;
    } finally {
      await iterator.return?.();
    }
  }
  return reply.send(Readable.from(chunks(), { objectMode: false }));
}

/**
 * As sendJsonl, but each line is written the moment it is produced (a streamed completion's
 * chunks, which a reader shows as they come); the first is still pulled before the status is sent.
 */
export async function sendJsonlLive(reply: FastifyReply, lines: AsyncIterable<string>): Promise<FastifyReply> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  reply.type('application/jsonl');
  if (first.done) return reply.send('');
  const head = first.value;
  async function* each(): AsyncGenerator<string> {
    try {
      yield head;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    } finally {
      await iterator.return?.();
    }
  }
  return reply.send(Readable.from(each(), { objectMode: false }));
}
