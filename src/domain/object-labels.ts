/**
 * Names of tags and aliases (docs/spec/objects.md §2.7). Request lists are deduplicated (first
 * occurrence kept) before validation.
 */

const TAG_RE = /^[\p{L}\p{N}_-]+( [\p{L}\p{N}_-]+)*$/u;
const MAX_TAG_LENGTH = 256;
const MAX_ALIAS_LENGTH = 128;

/** Distinct names in first-occurrence order. */
export function dedupeNames(names: string[]): string[] {
  return [...new Set(names)];
}

/** Why a tag name is invalid, or null when it is valid. */
export function tagProblem(tag: string): string | null {
  const length = [...tag].length;
  if (length < 1 || length > MAX_TAG_LENGTH) return `must be 1 to ${MAX_TAG_LENGTH} characters long`;
  if (!TAG_RE.test(tag)) return 'may contain only letters, digits, "-" and "_", with single spaces between words';
  return null;
}

/** Why an alias name is invalid, or null when it is valid. */
export function aliasProblem(alias: string): string | null {
  const length = [...alias].length;
  if (length < 1 || length > MAX_ALIAS_LENGTH) return `must be 1 to ${MAX_ALIAS_LENGTH} characters long`;
  if (alias.trim() === '') return 'must not be blank';
  if (alias.includes('/') || alias.includes(':')) return 'must not contain "/" or ":"';
  // `latest` and `vN` already name versions (§2.6)
  if (alias === 'latest') return 'is reserved';
  if (/^v\d+$/.test(alias)) return 'must not look like a version ("v" followed by digits)';
  return null;
}
