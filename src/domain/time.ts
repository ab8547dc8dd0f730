/**
 * Instants travel through the service as integer microseconds since the Unix epoch,
 * the precision calls store (finer digits are truncated).
 *
 * Accepted instants run from 0001-01-01 to 9999-12-31 (what ISO 8601 with four-digit years can
 * say). A JavaScript number holds whole microseconds exactly only up to 2^53 µs (year 2255);
 * later instants keep whole milliseconds at least, and are clamped so they never format past
 * year 9999.
 */

/** 0001-01-01T00:00:00Z. */
export const MIN_MICROS = -62_135_596_800_000_000;
/** The largest number ≤ 9999-12-31T23:59:59.999999Z that a double holds exactly. */
export const MAX_MICROS = 253_402_300_799_999_968;

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Offset of a `±HH[:MM]` zone in minutes; null when out of range (|offset| < 24 h, minutes < 60). */
function offsetMinutes(zone: string): number | null {
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4) || '0');
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

/**
 * Each request timestamp is parsed twice, once when the schema checks its format and once when
 * the service converts it. The canonical form is read directly (cheaper than a lookup); for
 * other forms a small memo of recent texts makes the second parse a lookup.
 */
const recentlyParsed = new Map<string, number | null>();
const RECENT_MAX = 4096;

/** Parses ISO 8601 (Z, offset, naive = UTC, date-only = midnight UTC) into microseconds; null if invalid. */
export function parseIsoMicros(text: string): number | null {
  if (typeof text !== 'string') return null;
  const canonical = parseCanonical(text);
  if (canonical !== undefined) return canonical;
  const known = recentlyParsed.get(text);
  if (known !== undefined) return known;
  const parsed = parseIso(text);
  if (recentlyParsed.size >= RECENT_MAX) recentlyParsed.clear();
  recentlyParsed.set(text, parsed);
  return parsed;
}

/** The number written by `count` ASCII digits at `from`; -1 when any is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1–12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return (
    era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468
  );
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The form the clients send, `YYYY-MM-DDTHH:MM:SS[.f…](Z|+00:00)` for years 1970–2200, read by
 * char codes (the regex parse was a visible share of batch ingest). Anything else, including
 * invalid dates, returns undefined and takes the general parse.
 */
function parseCanonical(text: string): number | undefined {
  const n = text.length;
  if (n < 20 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return undefined;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (
    year < 1970 ||
    year > 2200 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    hour > 23 ||
    minute > 59 ||
    second < 0 ||
    second > 60
  )
    return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > DAYS_IN_MONTH[month - 1]! + (month === 2 && leap ? 1 : 0)) return undefined;
  let i = 19;
  let fraction = 0;
  let scale = 1_000_000;
  if (text.charCodeAt(i) === 46) {
    for (i += 1; i < n; i += 1) {
      const digit = text.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) break;
      // digits past the microsecond are truncated
      if (scale > 1) {
        scale /= 10;
        fraction += digit * scale;
      }
    }
    if (i === 20) return undefined;
  }
  const zone = text.slice(i);
  if (zone !== 'Z' && zone !== '+00:00') return undefined;
  // a leap second (:60) reads as :59
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + Math.min(second, 59);
  return seconds * 1_000_000 + fraction;
}

function parseIso(text: string): number | null {
  const m = ISO_RE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const [year, month, day, hour, minute, second] = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return null;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return null;
  // a leap second (:60) reads as :59
  let ms = date.getTime() + hour * 3_600_000 + minute * 60_000 + Math.min(second, 59) * 1000;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const offset = offsetMinutes(zone);
    if (offset === null) return null;
    ms -= offset * 60_000;
  }
  const micros = ms * 1000 + Number((frac + '000000').slice(0, 6));
  if (micros < MIN_MICROS || micros > MAX_MICROS + 32) return null;
  return Math.min(micros, MAX_MICROS);
}

/**
 * Unix seconds (a JSON number) to microseconds, truncating finer digits. The decimal text of the
 * number is used, so `1735725600.123456` gives exactly `…123456` despite binary rounding.
 */
export function unixSecondsToMicros(seconds: number): number {
  const text = String(seconds);
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return Math.floor(seconds * 1_000_000);
  const [, sign, whole, frac = ''] = match;
  const magnitude = Number(whole) * 1_000_000 + Number((frac + '000000').slice(0, 6));
  if (sign === '') return magnitude;
  // a negative instant with digits past the microsecond lies before the truncated value
  return -magnitude - (/[1-9]/.test(frac.slice(6)) ? 1 : 0);
}

/** Accepts what request date-time fields accept: ISO strings or Unix seconds; null when invalid or out of range. */
export function toMicros(value: string | number): number | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    const micros = unixSecondsToMicros(value);
    return micros < MIN_MICROS || micros > MAX_MICROS + 32 ? null : Math.min(micros, MAX_MICROS);
  }
  return parseIsoMicros(value);
}

/** `2025-03-04T10:00:00Z` or `2025-03-04T10:00:00.250000Z`: fraction omitted when zero, else 6 digits. */
export function formatMicros(micros: number): string {
  const clamped = Math.min(Math.max(micros, MIN_MICROS), MAX_MICROS);
  const seconds = Math.floor(clamped / 1_000_000);
  const fraction = Math.min(Math.max(Math.round(clamped - seconds * 1_000_000), 0), 999_999);
  const base = secondText(seconds);
  return fraction === 0 ? `${base}Z` : `${base}.${String(fraction).padStart(6, '0')}Z`;
}

// Streams format many instants of the same second in a row; remember the last one.
let lastSecond = NaN;
let lastSecondText = '';

function secondText(seconds: number): string {
  if (seconds !== lastSecond) {
    lastSecondText = new Date(seconds * 1000).toISOString().slice(0, 19);
    lastSecond = seconds;
  }
  return lastSecondText;
}

export function nowMicros(): number {
  return Date.now() * 1000;
}
