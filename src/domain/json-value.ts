import { isLosslessNumber, LosslessNumber, parse } from 'lossless-json';

/**
 * JSON values as the object and table APIs receive them: parsed without losing how each number
 * was written (docs/spec/objects.md §1.2: `1` and `1.0` hash differently, big integers stay exact).
 * Numbers are `LosslessNumber`s holding the literal text; everything else is plain JS.
 */
export type JsonValue = null | boolean | string | LosslessNumber | number | JsonValue[] | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

export { isLosslessNumber, LosslessNumber };

/**
 * A parsed number literal. `toJSON` only serves plain `JSON.stringify` (error details echoing the
 * input); digests never use it, canonical JSON reads the literal text.
 */
class JsonNumber extends LosslessNumber {
  toJSON(): number {
    return Number(this.value);
  }
}

/**
 * Parses JSON text keeping number literals. Duplicate keys: the last one wins (objects spec
 * §1.2), as Python's json module does. Throws SyntaxError for invalid JSON.
 */
export function parseLosslessJson(text: string): JsonValue {
  return parse(text, null, {
    parseNumber: (literal: string) => new JsonNumber(literal),
    onDuplicateKey: ({ newValue }) => newValue,
  }) as JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !isLosslessNumber(value);
}

/** Whether a number literal is a float for Python (it contains `.`, `e` or `E`). */
export function isFloatLiteral(literal: string): boolean {
  return /[.eE]/.test(literal);
}

/**
 * The value with every lossless number turned into a JS number, for code that needs plain JSON
 * (JSON Schema checks). Big integers lose precision here, which such checks tolerate.
 */
export function toPlainJson(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, toPlainJson(item));
    return out;
  }
  return value;
}

/** Sets an own enumerable property, also for the key `__proto__` (which plain assignment would turn into a prototype change). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
