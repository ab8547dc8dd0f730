/**
 * Instants travel through the service as integer microseconds since the Unix epoch,
 * the precision calls store (finer digits are truncated).
 */

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses ISO 8601 (Z, offset, naive = UTC, date-only = midnight UTC) into microseconds; null if invalid. */
export function parseIsoMicros(text: string): number | null {
  const m = ISO_RE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, Math.min(second, 59));
  if (Number.isNaN(ms)) return null;
  const check = new Date(ms);
  if (check.getUTCDate() !== day) return null;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
    if (offsetMin > 24 * 60) return null;
    ms -= sign * offsetMin * 60_000;
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return ms * 1000 + micros;
}

/** Unix seconds (a JSON number) to microseconds, truncating finer digits. */
export function unixSecondsToMicros(seconds: number): number {
  return Math.trunc(seconds * 1_000_000);
}

/** Accepts what request date-time fields accept: ISO strings or Unix seconds. */
export function toMicros(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? unixSecondsToMicros(value) : null;
  return parseIsoMicros(value);
}

/** `2025-03-04T10:00:00Z` or `2025-03-04T10:00:00.250000Z`: fraction omitted when zero, else 6 digits. */
export function formatMicros(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return fraction === 0 ? `${base}Z` : `${base}.${String(fraction).padStart(6, '0')}Z`;
}

export function nowMicros(): number {
  return Date.now() * 1000;
}
