import { createHash } from 'node:crypto';

/** docs/spec/agents.md §8 `content_digest` (our choice): the first 16 bytes of SHA-256 of the UTF-8 content, as hex. */
export function contentDigest(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex').slice(0, 32);
}
