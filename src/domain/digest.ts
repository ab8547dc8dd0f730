import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * The digests of docs/spec/objects.md §1: content addresses the official clients compute too, so they
 * must match byte for byte.
 */

/** §1.1: SHA-256, URL-safe base64, `-`→`X`, `_`→`Y`, no padding: 43 characters of `[A-Za-z0-9]`. */
export function digestBytes(bytes: Uint8Array | string): string {
  return encodeHash(createHash('sha256').update(bytes));
}

function encodeHash(hash: Hash): string {
  // Node's base64url has no padding already
  return hash.digest('base64url').replace(/-/g, 'X').replace(/_/g, 'Y');
}

/** §1.3 / §1.4: the digest of a value's canonical JSON, with the text that was hashed. */
export function digestValue(value: unknown): { digest: string; canonical: string } {
  const canonical = canonicalJson(value);
  return { digest: digestBytes(Buffer.from(canonical, 'utf8')), canonical };
}

/** §1.4: lowercase hex SHA-256 over the row digests concatenated in table order. */
export function tableDigest(rowDigests: readonly string[]): string {
  const hash = createHash('sha256');
  for (const rowDigest of rowDigests) hash.update(rowDigest, 'ascii');
  return hash.digest('hex');
}

/** §1.5 for streamed bytes: feed chunks, then read the digest and the byte count. */
export class StreamDigest {
  readonly #hash = createHash('sha256');
  #size = 0;

  update(chunk: Uint8Array): void {
    this.#hash.update(chunk);
    this.#size += chunk.byteLength;
  }

  get size(): number {
    return this.#size;
  }

  /** The §1.1 digest of everything fed so far; call once. */
  finish(): string {
    return encodeHash(this.#hash);
  }
}

const OBJECT_DIGEST_RE = /^[A-Za-z0-9]{43}$/;
const TABLE_DIGEST_RE = /^[0-9a-f]{64}$/i;
const VERSION_RE = /^v(\d+)$/;

/** §1.8: a content hash is an object/file digest (43 alphanumerics) or a table digest (64 hex). */
export function isContentHash(text: string): boolean {
  return OBJECT_DIGEST_RE.test(text) || TABLE_DIGEST_RE.test(text);
}

/** §1.8: `vN` names a version index; returns N, or null when the text is not version-like. */
export function parseVersionLike(text: string): number | null {
  const match = VERSION_RE.exec(text);
  if (!match) return null;
  const index = Number(match[1]);
  return Number.isSafeInteger(index) ? index : null;
}
