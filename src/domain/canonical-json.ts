import { isFloatLiteral, isLosslessNumber } from './json-value.js';

/**
 * Canonical JSON text (docs/spec/objects.md §1.2): what Python's `json.dumps(value, sort_keys=True)`
 * prints for the value the reference server parsed from the request. Digests hash these bytes,
 * so every rule here is byte-exact: `", "` and `": "` separators, keys sorted by code point,
 * non-ASCII escaped as lowercase `\uXXXX`, integers exact, floats in Python `repr` form.
 */
export function canonicalJson(value: unknown): string {
  return write(value);
}

// Strings are built by concatenation (V8 ropes), which allocates far less than collecting parts.
function write(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : pythonFloatRepr(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') throw new TypeError(`Value of type ${typeof value} has no JSON form`);
  if (isLosslessNumber(value)) return numberLiteral(value.value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) out += (i > 0 ? ', ' : '') + write(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = sortKeys(Object.keys(record));
  let out = '{';
  for (const [i, key] of keys.entries()) out += `${i > 0 ? ', ' : ''}${quote(key)}: ${write(record[key])}`;
  return `${out}}`;
}

/** A number literal as Python re-prints it: integers keep their exact digits, floats go through `repr`. */
export function numberLiteral(literal: string): string {
  if (isFloatLiteral(literal)) return pythonFloatRepr(Number(literal));
  return literal === '-0' ? '0' : literal;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Keys in code-point order; the plain sort is exact unless some key has a surrogate. */
function sortKeys(keys: string[]): string[] {
  return keys.some((key) => SURROGATE.test(key)) ? keys.sort(compareCodePoints) : keys.sort();
}

/**
 * Orders strings by Unicode code point, as Python sorts `str` keys. JS compares UTF-16 code
 * units, which differs only when an astral character meets one in U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done && cb.done ? 0 : ca.done ? -1 : 1;
    const diff = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
}

const PLAIN_ASCII = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;
const NEEDS_ESCAPE = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/g;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function escapeChar(ch: string): string {
  return SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A JSON string literal with Python's `ensure_ascii` escaping (lone surrogates are escaped as themselves). */
export function quote(text: string): string {
  return PLAIN_ASCII.test(text) ? `"${text}"` : `"${text.replace(NEEDS_ESCAPE, escapeChar)}"`;
}

/**
 * Python's `repr(float)`: the shortest digits that round-trip (what `toExponential()` yields),
 * fixed notation for decimal exponents -4..15 with at least one fractional digit, otherwise
 * `d[.ddd]e±XX`.
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const magnitude = Math.abs(x);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    // JS prints this range in fixed notation with the same shortest digits; Python adds ".0" to integral values
    const text = String(x);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa = '', expText] = x.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const exp = Number(expText);
  let body: string;
  if (exp >= 16 || exp < -4) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp >= 0) {
    const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
    body = `${whole}.${digits.slice(exp + 1) || '0'}`;
  } else {
    body = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return negative ? `-${body}` : body;
}
