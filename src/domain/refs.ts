/**
 * Weave refs in their external form: `weave:///<entity>/<project>/<kind>/<rest>`.
 */
export const REF_PREFIX = 'weave:///';

/** A well-formed external ref has at least entity, project and one more non-empty part. */
export function isWellFormedRef(value: string): boolean {
  if (!value.startsWith(REF_PREFIX)) return false;
  const parts = value.slice(REF_PREFIX.length).split('/');
  return parts.length >= 3 && parts[0] !== '' && parts[1] !== '' && parts.slice(2).join('/') !== '';
}

/**
 * Finds the first string leaf starting with `weave:///` that is not a well-formed ref,
 * walking objects and arrays; returns it, or undefined when every such string is valid.
 */
export function findMalformedRef(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    return value.startsWith(REF_PREFIX) && !isWellFormedRef(value) ? value : undefined;
  }
  if (value === null || typeof value !== 'object' || depth > 200) return undefined;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items) {
    const bad = findMalformedRef(item, depth + 1);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/**
 * The short name a call shows for its op: `<name>` of an object or op ref
 * (`weave:///e/p/op/<name>:<digest>`), the op name itself when it is not a ref,
 * and null for any other ref-shaped string (a call ref, say).
 */
export function opDisplayName(opName: string): string | null {
  if (!opName.startsWith(REF_PREFIX)) return opName;
  const parts = opName.slice(REF_PREFIX.length).split('/');
  if (parts.length < 4 || (parts[2] !== 'op' && parts[2] !== 'object')) return null;
  const [name = ''] = parts[3]!.split(':');
  return name === '' ? null : name;
}
