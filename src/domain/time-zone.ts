/**
 * IANA time zones through Temporal (`@js-temporal/polyfill`): UTC offsets of a zone and the
 * wall-clock aligned time buckets of `/calls/stats` (docs/spec/calls.md §4.9).
 */
import { Temporal } from '@js-temporal/polyfill';

const HOUR_MS = 3_600_000;
/**
 * Real offsets lie within [-12 h, +14 h], so two readings of one wall-clock time are less than 26 h
 * apart; a wall-clock time this far from every transition has exactly one reading.
 */
const SAFE_MS = 48 * HOUR_MS;

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

/** Local wall clock minus UTC, in ms, at the UTC instant `utcMs`. */
export function offsetAtMs(zone: string, utcMs: number): number {
  if (isUtc(zone)) return 0;
  return Temporal.Instant.fromEpochMilliseconds(utcMs).toZonedDateTimeISO(zone).offsetNanoseconds / 1_000_000;
}

/**
 * The UTC instant (ms) of a local wall-clock time, given as ms since the epoch on that clock. A
 * time repeated by a backward shift resolves to its earlier instant; a time skipped by a forward
 * shift moves forward by the gap (Temporal's `disambiguation: "compatible"`).
 */
export function localToUtcMs(zone: string, localMs: number): number {
  const wall = Temporal.Instant.fromEpochMilliseconds(localMs).toZonedDateTimeISO('UTC').toPlainDateTime();
  return wall.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

/** Instants (ms) where the zone's offset changes within (fromMs, toMs], ascending. */
export function transitionsBetween(zone: string, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  if (isUtc(zone)) return out;
  let at: Temporal.ZonedDateTime | null = Temporal.Instant.fromEpochMilliseconds(fromMs).toZonedDateTimeISO(zone);
  for (;;) {
    at = at.getTimeZoneTransition('next');
    if (at === null || at.epochMilliseconds > toMs) return out;
    out.push(at.epochMilliseconds);
  }
}

/**
 * Local → UTC conversion for many wall-clock times of one window. A Temporal conversion costs
 * about 35 µs with the polyfill (a 10 000-bucket request took 0.4 s), so a time far from every
 * transition Temporal reports subtracts the window's constant offset there, and only times near a
 * transition (or outside the window) take the Temporal conversion.
 */
class LocalResolver {
  readonly #transitions: number[];
  /** `#offsets[i]` holds before `#transitions[i]`; the last one after every transition. */
  readonly #offsets: number[];

  constructor(
    private readonly zone: string,
    private readonly fromMs: number,
    private readonly toMs: number,
  ) {
    this.#transitions = transitionsBetween(zone, fromMs, toMs);
    this.#offsets = [offsetAtMs(zone, fromMs), ...this.#transitions.map((t) => offsetAtMs(zone, t))];
  }

  toUtcMs(localMs: number): number {
    const lo = localMs - SAFE_MS;
    const hi = localMs + SAFE_MS;
    if (lo < this.fromMs || hi > this.toMs) return localToUtcMs(this.zone, localMs);
    // first transition after lo; none may lie in [lo, hi]
    let i = 0;
    while (i < this.#transitions.length && this.#transitions[i]! <= lo) i += 1;
    if (i < this.#transitions.length && this.#transitions[i]! <= hi) return localToUtcMs(this.zone, localMs);
    // #offsets has one entry more than #transitions
    return localMs - this.#offsets[i]!;
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
  const startMs = Math.floor(startUs / 1000);
  // a first bucket far before the start (granularity above the range) is converted outside the window
  const resolver = new LocalResolver(zone, startMs - 3 * 24 * HOUR_MS, Math.ceil(endUs / 1000) + 3 * 24 * HOUR_MS);
  const startLocal = startUs + offsetAtMs(zone, startMs) * 1000;
  // past this local time every instant is after the end (offsets stay within ±15 h)
  const lastLocal = endUs + 15 * HOUR_MS * 1000;
  for (let local = floorDiv(startLocal, step); local <= lastLocal; local += step) {
    const localMs = Math.floor(local / 1000);
    const utc = resolver.toUtcMs(localMs) * 1000 + (local - localMs * 1000);
    if (utc >= endUs) break;
    if (starts.length === 0 || utc > starts[starts.length - 1]!) starts.push(utc);
  }
  return starts;
}

/** Index of the bucket containing `atUs` (the last start at or before it), or -1 before the first. */
export function bucketIndex(starts: readonly number[], atUs: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || atUs < starts[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= atUs) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
