import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMicros, parseIsoMicros } from '../../src/domain/time.js';

// The char-code fast path for the clients' canonical form must agree with Date's reading.

test('canonical timestamps parse to the same instant as Date, fractions truncated to microseconds', () => {
  const cases: Array<[string, number]> = [
    ['1970-01-01T00:00:00Z', 0],
    ['2025-01-01T10:00:00Z', Date.UTC(2025, 0, 1, 10) * 1000],
    ['2024-02-29T23:59:59.5Z', Date.UTC(2024, 1, 29, 23, 59, 59) * 1000 + 500_000],
    ['2025-06-01T12:34:56.123456+00:00', Date.UTC(2025, 5, 1, 12, 34, 56) * 1000 + 123_456],
    ['2025-06-01T12:34:56.1234569Z', Date.UTC(2025, 5, 1, 12, 34, 56) * 1000 + 123_456],
    ['2100-03-01T00:00:00.000001Z', Date.UTC(2100, 2, 1) * 1000 + 1],
    ['2016-12-31T23:59:60Z', Date.UTC(2016, 11, 31, 23, 59, 59) * 1000],
  ];
  for (const [text, micros] of cases) assert.equal(parseIsoMicros(text), micros, text);
});

test('invalid canonical-looking dates are still rejected, other forms still parse', () => {
  for (const bad of [
    '2023-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-04-31T00:00:00Z',
    '2025-01-01T24:00:00Z',
    '2025-01-01T00:00:00.Z',
  ]) {
    assert.equal(parseIsoMicros(bad), null, bad);
  }
  assert.equal(parseIsoMicros('2025-01-01T10:00:00+02:00'), Date.UTC(2025, 0, 1, 8) * 1000);
  assert.equal(parseIsoMicros('1969-12-31T23:59:59Z'), -1_000_000);
  assert.equal(parseIsoMicros('2300-01-01T00:00:00Z'), Date.UTC(2300, 0, 1) * 1000);
});

test('every day of 1970–2200 at a random time round-trips through formatMicros', () => {
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const day = 86_400_000_000;
  for (let micros = 0; micros < Date.UTC(2201, 0, 1) * 1000; micros += day) {
    const instant = micros + Math.floor(random() * day);
    assert.equal(parseIsoMicros(formatMicros(instant)), instant);
  }
});
