import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

/**
 * A UUIDv7 string (RFC 9562): 48-bit Unix milliseconds, version 7, then random bits.
 * Ids made within one millisecond stay ordered through a 12-bit counter in `rand_a`.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (nowMs <= lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      lastMs += 1;
      counter = 0;
    }
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    counter = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
