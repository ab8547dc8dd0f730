import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatMicros,
  MAX_MICROS,
  MIN_MICROS,
  parseIsoMicros,
  toMicros,
  unixSecondsToMicros,
} from '../../src/domain/time.js';

/** src/domain/time.ts: request date-times in, response date-times out (docs/spec/calls.md §1). */

const T0 = 1_735_725_600_000_000; // 2025-01-01T10:00:00Z

test('parseIsoMicros accepts Z, offsets, naive, date-only and fractions', () => {
  const cases: Array<[string, number]> = [
    ['2025-01-01T10:00:00Z', T0],
    ['2025-01-01T10:00:00z', T0],
    ['2025-01-01t10:00:00Z', T0],
    ['2025-01-01 10:00:00Z', T0],
    ['2025-01-01T10:00:00', T0],
    ['2025-01-01T10:00Z', T0],
    ['  2025-01-01T10:00:00Z  ', T0],
    ['2025-01-01T12:00:00+02:00', T0],
    ['2025-01-01T12:00:00+0200', T0],
    ['2025-01-01T12:00:00+02', T0],
    ['2025-01-01T07:30:00-02:30', T0],
    ['2025-01-01T10:00:00+00:00', T0],
    ['2025-01-01', T0 - 10 * 3_600_000_000],
    ['2025-01-01T10:00:00.5Z', T0 + 500_000],
    ['2025-01-01T10:00:00,5Z', T0 + 500_000],
    ['2025-01-01T10:00:00.250000Z', T0 + 250_000],
    ['2025-01-01T10:00:00.000001Z', T0 + 1],
    ['2025-01-01T10:00:00.1234569Z', T0 + 123_456],
    ['2025-01-01T10:00:00.999999999+01:00', T0 - 3_600_000_000 + 999_999],
    ['2024-02-29T00:00:00Z', 1_709_164_800_000_000],
    ['1970-01-01T00:00:00Z', 0],
    ['1969-12-31T23:59:59.999999Z', -1],
    ['0001-01-01T00:00:00Z', MIN_MICROS],
    ['0099-03-01T00:00:00Z', -59_037_897_600_000_000],
    ['2016-12-31T23:59:60Z', 1_483_228_799_000_000],
  ];
  for (const [text, expected] of cases) assert.equal(parseIsoMicros(text), expected, text);
});

test('parseIsoMicros rejects what is not a valid instant', () => {
  const bad = [
    '',
    'yesterday',
    '2025',
    '2025-01',
    '2025-1-1',
    '25-01-01',
    '2025-13-01',
    '2025-00-10',
    '2025-01-32',
    '2025-02-30',
    '2023-02-29',
    '2025-01-01T24:00:00Z',
    '2025-01-01T10:60:00Z',
    '2025-01-01T10:00:61Z',
    '2025-01-01T10:00:00+05:75',
    '2025-01-01T10:00:00+24:00',
    '2025-01-01T10:00:00 UTC',
    '2025-01-01T10:00:00.Z',
    '0000-01-01',
    '2025-01-01T10',
  ];
  for (const text of bad) assert.equal(parseIsoMicros(text), null, text);
  assert.equal(parseIsoMicros(5 as unknown as string), null);
});

test('unixSecondsToMicros is exact to the microsecond and truncates finer digits', () => {
  const cases: Array<[number, number]> = [
    [1735725600, T0],
    [1735725600.25, T0 + 250_000],
    [1735725600.123456, T0 + 123_456],
    [1735725600.1234567, T0 + 123_456],
    [0.000001, 1],
    [0, 0],
    [-0.5, -500_000],
    [-1.0000005, -1_000_001],
    [1e-7, 0],
  ];
  for (const [seconds, expected] of cases) assert.equal(unixSecondsToMicros(seconds), expected, String(seconds));
});

test('toMicros takes strings and numbers, refusing out-of-range and non-finite values', () => {
  assert.equal(toMicros('2025-01-01T10:00:00Z'), T0);
  assert.equal(toMicros(1735725900), T0 + 300_000_000);
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1e20, -1e12, 'nope'])
    assert.equal(toMicros(bad), null, String(bad));
  assert.equal(toMicros('9999-12-31T23:59:59Z'), 253_402_300_799_000_000);
  assert.ok(toMicros('9999-12-31T23:59:59.999999Z')! <= MAX_MICROS);
});

test('formatMicros writes UTC with Z, no fraction when whole, else six digits', () => {
  const cases: Array<[number, string]> = [
    [T0, '2025-01-01T10:00:00Z'],
    [T0 + 250_000, '2025-01-01T10:00:00.250000Z'],
    [T0 + 1, '2025-01-01T10:00:00.000001Z'],
    [T0 + 999_999, '2025-01-01T10:00:00.999999Z'],
    [0, '1970-01-01T00:00:00Z'],
    [-1, '1969-12-31T23:59:59.999999Z'],
    [-500_000, '1969-12-31T23:59:59.500000Z'],
    [MIN_MICROS, '0001-01-01T00:00:00Z'],
    [MAX_MICROS, '9999-12-31T23:59:59.999968Z'],
    [1e26, '9999-12-31T23:59:59.999968Z'],
    [-1e26, '0001-01-01T00:00:00Z'],
  ];
  for (const [micros, expected] of cases) assert.equal(formatMicros(micros), expected, String(micros));
});

test('parse then format round-trips', () => {
  for (const text of [
    '2025-03-04T10:00:00Z',
    '2025-03-04T10:00:00.250000Z',
    '1999-12-31T23:59:59.000001Z',
    '0500-06-15T12:00:00Z',
  ]) {
    assert.equal(formatMicros(parseIsoMicros(text)!), text);
  }
});
