import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { intJson, nativeJsonIsExact, type OtelJson, type OtelJsonObject, type OtlpKeyValue } from './otlp-model.js';

/** Attribute normalisation of docs/spec/otel-service-queues.md §A.3: JSON-looking strings, dotted keys → nested objects, lookups. */

/** §A.3 step 4: two keys need one path to be both a value and an object; the span is rejected. */
export class PathConflictError extends Error {}

export function isObject(value: unknown): value is OtelJsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, also for the key `__proto__` (plain assignment would change the prototype). */
export function setOwn(target: OtelJsonObject, key: string, value: OtelJson): void {
  // defineProperty is several times slower than assignment, and only `__proto__` needs it
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function fromLossless(value: unknown): OtelJson {
  if (isLosslessNumber(value)) {
    const literal = value.value;
    return /^-?\d+$/.test(literal) ? intJson(BigInt(literal)) : Number(literal);
  }
  if (Array.isArray(value)) return value.map(fromLossless);
  if (isObject(value)) {
    const out: OtelJsonObject = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, fromLossless(item));
    return out;
  }
  return value as OtelJson;
}

/** Parses JSON text keeping integers exact; undefined when it is not JSON. */
export function parseJsonText(text: string): OtelJson | undefined {
  try {
    if (nativeJsonIsExact(text)) return fromLossless(JSON.parse(text));
    return fromLossless(
      parse(text, null, {
        parseNumber: (literal: string) => new LosslessNumber(literal),
        onDuplicateKey: ({ newValue }) => newValue,
      }),
    );
  } catch {
    return undefined;
  }
}

/** JSON text of an ingest value; bigints are written as exact integer literals. */
export function stringifyJson(value: OtelJson): string {
  // the native serialiser gives the same text for every value without a bigint (non-finite
  // doubles are strings already, §A.3 step 1) and is several times faster; it throws on a bigint
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  return stringify(value) ?? 'null';
}

/** §A.3 step 2: a top-level string starting with `[` or `{` that is valid JSON becomes that JSON. */
export function topLevelValue(value: OtelJson): OtelJson {
  if (typeof value !== 'string' || (value[0] !== '[' && value[0] !== '{')) return value;
  const parsed = parseJsonText(value);
  return parsed === undefined ? value : parsed;
}

/**
 * §A.3 steps 2–4: the attributes as one nested tree, keys split on `.`. Two objects at one path
 * merge; a value where another key needs an object (either order) throws PathConflictError.
 */
export function attributeTree(attributes: OtlpKeyValue[]): OtelJsonObject {
  const root: OtelJsonObject = {};
  for (const { key, value } of attributes) {
    const segments = key.split('.');
    let node = root;
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i]!;
      if (!Object.hasOwn(node, segment)) setOwn(node, segment, {});
      const next = node[segment];
      if (!isObject(next)) throw conflict(key, segments.slice(0, i + 1).join('.'));
      node = next;
    }
    // split yields at least one segment
    const leaf = segments[segments.length - 1]!;
    const normalised = topLevelValue(value);
    const existing = Object.hasOwn(node, leaf) ? node[leaf] : undefined;
    if (isObject(existing) && isObject(normalised)) {
      for (const [k, v] of Object.entries(normalised)) setOwn(existing, k, v);
    } else if (isObject(existing) && hasOtherKeyBelow(attributes, key)) {
      throw conflict(key, key);
    } else {
      setOwn(node, leaf, normalised);
    }
  }
  return root;
}

function hasOtherKeyBelow(attributes: OtlpKeyValue[], key: string): boolean {
  return attributes.some((kv) => kv.key.startsWith(`${key}.`));
}

function conflict(key: string, at: string): PathConflictError {
  return new PathConflictError(
    `Invalid attribute structure: key '${key}' conflicts with the value at '${at}' (a key cannot be both a value and a parent of other keys)`,
  );
}

/** Split forms of the lookup keys: the same few dozen candidate keys are looked up for every span. */
const SEGMENTS = new Map<string, string[]>();

function segmentsOf(dottedKey: string): string[] {
  let segments = SEGMENTS.get(dottedKey);
  if (segments === undefined) {
    segments = dottedKey.split('.');
    if (SEGMENTS.size < 1024) SEGMENTS.set(dottedKey, segments);
  }
  return segments;
}

/** §A.3 step 5: the value at a dotted key, walking objects (and arrays by numeric segments). */
export function lookup(tree: OtelJson, dottedKey: string): OtelJson | undefined {
  let node: OtelJson | undefined = tree;
  for (const segment of segmentsOf(dottedKey)) {
    if (isObject(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    else if (Array.isArray(node) && /^\d+$/.test(segment)) node = node[Number(segment)];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** §A.3 step 7: only truthy values count as present. */
export function isTruthy(value: OtelJson | undefined): boolean {
  if (value === undefined || value === null || value === false || value === '' || value === 0 || value === 0n)
    return false;
  if (typeof value === 'number' && Number.isNaN(value)) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** §A.3 step 6: objects whose keys are exactly "0".."n-1" become arrays, at every depth. */
export function indexedObjectsToArrays(value: OtelJson): OtelJson {
  if (Array.isArray(value)) return value.map(indexedObjectsToArrays);
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((key, i) => key === String(i)))
    return Object.values(value).map((item) => indexedObjectsToArrays(item));
  const out: OtelJsonObject = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, indexedObjectsToArrays(item));
  return out;
}
