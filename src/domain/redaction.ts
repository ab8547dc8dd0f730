/**
 * PII redaction on write (issue 35): the one pure function every ingest path calls before a value
 * is stored (services/redaction-service.ts applies it at the ingest boundary). It works on the JSON
 * text the store receives, replacing matches only inside JSON string literals (keys included), so
 * the text stays valid JSON and its shape is kept: `"mail me at a@b.io"` becomes
 * `"mail me at [redacted:email]"`. Numbers are left alone (a 9-digit integer is far more often a
 * count than an SSN).
 */

export const BUILTIN_KINDS = ['email', 'phone', 'ssn', 'credit_card', 'ip'] as const;
export type BuiltinKind = (typeof BUILTIN_KINDS)[number];

/** One thing to redact: a built-in kind or a named custom pattern. */
export interface RedactionRule {
  name: string;
  pattern: RegExp;
  /** Extra check on a match (the Luhn checksum of a card number). */
  accept?: (match: string) => boolean;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const HEX = '[0-9A-Fa-f]{1,4}';

/** The built-in rules, in the order they apply (a card number before a phone number it contains). */
const BUILTINS: Record<BuiltinKind, RedactionRule> = {
  email: { name: 'email', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  credit_card: { name: 'credit_card', pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g, accept: luhnValid },
  ssn: { name: 'ssn', pattern: /(?<![\d-])\d{3}[- ]\d{2}[- ]\d{4}(?![\d-])/g },
  phone: {
    name: 'phone',
    pattern: /(?<![\w+-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{3}\)|\d{3})[ .-]?\d{3}[ .-]?\d{4}(?![\w-])/g,
  },
  ip: {
    name: 'ip',
    pattern: new RegExp(
      `(?<![\\w.:])(?:(?:${OCTET}\\.){3}${OCTET}|(?:${HEX}:){7}${HEX}|(?:${HEX}:){1,7}:(?:${HEX}(?::${HEX}){0,6})?|::(?:${HEX}(?::${HEX}){0,6}))(?![\\w.:])`,
      'g',
    ),
  },
};

const APPLY_ORDER: BuiltinKind[] = ['email', 'credit_card', 'ssn', 'phone', 'ip'];

/** The rules for the given kinds (built-ins, then named custom patterns), in the order they apply. */
export function rulesFor(kinds: readonly string[], custom: ReadonlyMap<string, RegExp>): RedactionRule[] {
  const rules = APPLY_ORDER.filter((k) => kinds.includes(k)).map((k) => BUILTINS[k]);
  for (const [name, pattern] of custom) {
    if (kinds.includes(name) || kinds.includes('custom')) rules.push({ name, pattern: globalCopy(pattern) });
  }
  return rules;
}

function globalCopy(pattern: RegExp): RegExp {
  return pattern.flags.includes('g') ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

/** Counts of what one call to `redactJsonText` replaced, by rule name. */
export type RedactionCounts = Record<string, number>;

/** A JSON string literal (escapes included). */
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;

/**
 * `text` (JSON) with every match of `rules` inside its string literals replaced by
 * `[redacted:<name>]`; `counts` gains one per replacement. Returns `text` itself when nothing matched.
 */
export function redactJsonText(text: string, rules: readonly RedactionRule[], counts: RedactionCounts): string {
  if (rules.length === 0 || !rules.some((r) => matches(r, text))) return text;
  return text.replace(STRING_LITERAL, (literal) => redactString(literal, rules, counts));
}

/** A plain string (not JSON text) with the matches replaced, for fields stored as text. */
export function redactString(value: string, rules: readonly RedactionRule[], counts: RedactionCounts): string {
  let out = value;
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, (match) => {
      if (rule.accept && !rule.accept(match)) return match;
      counts[rule.name] = (counts[rule.name] ?? 0) + 1;
      return `[redacted:${rule.name}]`;
    });
  }
  return out;
}

function matches(rule: RedactionRule, text: string): boolean {
  rule.pattern.lastIndex = 0;
  const hit = rule.pattern.test(text);
  rule.pattern.lastIndex = 0;
  return hit;
}

/** The Luhn checksum of the digits in `candidate` (separators ignored). */
export function luhnValid(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
