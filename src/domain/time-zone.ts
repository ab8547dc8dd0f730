/**
 * IANA time zones through `Intl` (no tz database dependency): UTC offsets of a zone and the
 * wall-clock aligned time buckets of `/calls/stats` (calls spec §4.9).
 */

const HOUR_MS = 3_600_000;
/** Offsets are sampled this far apart; two transitions closer than this would be missed (none in modern tz data). */
const SAMPLE_MS = 6 * HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The canonical name of a zone Intl knows (`europe/berlin` → `Europe/Berlin`), or null. */
export function canonicalTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function isUtc(zone: string): boolean {
  return zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Etc/GMT' || zone === 'GMT';
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Local wall clock minus UTC, in ms (whole seconds), at the UTC instant `utcMs`. */
export function offsetAtMs(zone: string, utcMs: number): number {
  if (isUtc(zone)) return 0;
  const fields: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(utcMs)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wall = new Date(0);
  // setUTCFullYear keeps years below 100 literal (Date.UTC would map them to 19xx)
  wall.setUTCFullYear(fields.year, fields.month - 1, fields.day);
  wall.setUTCHours(fields.hour, fields.minute, fields.second, 0);
  const wholeSecond = utcMs - (((utcMs % 1000) + 1000) % 1000);
  return wall.getTime() - wholeSecond;
}

/**
 * The offsets of one zone over a time window as constant segments, so that converting many
 * instants costs a search instead of an `Intl` call each. Transitions are found by sampling and
 * then bisecting to the millisecond.
 */
export class ZoneOffsets {
  /** Instants where a new offset begins, ascending. */
  readonly #starts: number[] = [];
  /** `#offsets[0]` holds before `#starts[0]`; `#offsets[i + 1]` from `#starts[i]` on. */
  readonly #offsets: number[];

  constructor(
    private readonly zone: string,
    private readonly fromMs: number,
    private readonly toMs: number,
  ) {
    let prevAt = fromMs;
    let prev = offsetAtMs(zone, fromMs);
    this.#offsets = [prev];
    if (isUtc(zone)) return;
    while (prevAt < toMs) {
      const at = Math.min(prevAt + SAMPLE_MS, toMs);
      const offset = offsetAtMs(zone, at);
      if (offset !== prev) {
        this.#starts.push(this.#bisect(prevAt, at, prev));
        this.#offsets.push(offset);
      }
      prevAt = at;
      prev = offset;
    }
  }

  /** First instant in (lo, hi] whose offset differs from `before`. */
  #bisect(lo: number, hi: number, before: number): number {
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetAtMs(this.zone, mid) === before) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /** Offset (ms) at the UTC instant `utcMs`; outside the window it asks Intl directly. */
  at(utcMs: number): number {
    if (utcMs < this.fromMs || utcMs > this.toMs) return offsetAtMs(this.zone, utcMs);
    let i = 0;
    while (i < this.#starts.length && this.#starts[i] <= utcMs) i += 1;
    return this.#offsets[i];
  }

  /**
   * The UTC instant of a local wall-clock time. A time repeated by a backward shift resolves to
   * its earlier instant; a time skipped by a forward shift moves forward by the gap (as
   * JavaScript's Temporal does with `disambiguation: "compatible"`).
   */
  localToUtc(localMs: number): number {
    // every real offset lies within [-12 h, +14 h], so the true instant is within this window
    const before = this.at(localMs - 15 * HOUR_MS);
    const after = this.at(localMs + 13 * HOUR_MS);
    const early = localMs - before;
    const late = localMs - after;
    const earlyOk = this.at(early) === before;
    const lateOk = this.at(late) === after;
    if (earlyOk && lateOk) return Math.min(early, late);
    if (lateOk) return late;
    return early;
  }
}

const floorDiv = (a: number, b: number): number => Math.floor(a / b) * b;

/**
 * Bucket start instants (UTC microseconds) for `[startUs, endUs)`: from the bucket containing
 * the start to the last bucket beginning before the end. Buckets are multiples of
 * `granularitySeconds` on the zone's local wall clock (multiples since the epoch for UTC); the
 * UTC span of a bucket that crosses an offset change grows or shrinks with it, and local starts
 * that resolve to the same instant are emitted once.
 */
export function bucketStarts(startUs: number, endUs: number, granularitySeconds: number, zone: string): number[] {
  const step = granularitySeconds * 1_000_000;
  const starts: number[] = [];
  if (isUtc(zone)) {
    for (let at = floorDiv(startUs, step); at < endUs; at += step) starts.push(at);
    return starts;
  }
  const dayMs = 24 * HOUR_MS;
  // a first bucket far before the start (granularity above the range) is converted outside the window
  const offsets = new ZoneOffsets(zone, Math.floor(startUs / 1000) - 2 * dayMs, Math.ceil(endUs / 1000) + 2 * dayMs);
  const startLocal = startUs + offsets.at(Math.floor(startUs / 1000)) * 1000;
  // past this local time every instant is after the end (offsets stay within ±15 h)
  const lastLocal = endUs + 15 * HOUR_MS * 1000;
  for (let local = floorDiv(startLocal, step); local <= lastLocal; local += step) {
    const localMs = Math.floor(local / 1000);
    const utc = offsets.localToUtc(localMs) * 1000 + (local - localMs * 1000);
    if (utc >= endUs) break;
    if (starts.length === 0 || utc > starts[starts.length - 1]) starts.push(utc);
  }
  return starts;
}

/** Index of the bucket containing `atUs` (the last start at or before it), or -1 before the first. */
export function bucketIndex(starts: readonly number[], atUs: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || atUs < starts[0]) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= atUs) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
