import { createHash } from 'node:crypto';

/**
 * Deterministic call ids for server-side evaluation and scoring (our choice): the id of every call
 * a run writes is derived from the run's id and the call's place in the tree, so a run resumed
 * after a crash rewrites the same calls (the store merges by id) instead of adding new ones.
 *
 * The result is a UUID of version 8 (RFC 9562 custom layout) built from SHA-256; when `base` is a
 * UUIDv7, its 48-bit timestamp is kept in front so the ids still sort near the run's own.
 */
export function derivedCallId(base: string, ...parts: Array<string | number>): string {
  const hash = createHash('sha256')
    .update([base, ...parts.map(String)].join('\u0000'))
    .digest();
  const bytes = Buffer.from(hash.subarray(0, 16));
  const v7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-/i.exec(base);
  // the regex's two groups always match when it does
  if (v7) Buffer.from(v7[1]! + v7[2]!, 'hex').copy(bytes, 0);
  // a 16-byte buffer: indices 6 and 8 exist
  bytes[6] = 0x80 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
