import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bucketIndex,
  bucketStarts,
  canonicalTimeZone,
  localToUtcMs,
  offsetAtMs,
  transitionsBetween,
} from '../../src/domain/time-zone.js';

/** Wall-clock bucket alignment of `/calls/stats` (docs/spec/calls.md §4.9) through Temporal. */

const us = (iso: string): number => Date.parse(iso) * 1000;
const iso = (micros: number[]): string[] => micros.map((m) => new Date(m / 1000).toISOString().replace('.000Z', 'Z'));

test('canonical names and offsets', () => {
  assert.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin');
  assert.equal(canonicalTimeZone('UTC'), 'UTC');
  assert.equal(canonicalTimeZone('Mars/Olympus_Mons'), null);
  assert.equal(offsetAtMs('Europe/Berlin', Date.parse('2025-01-15T12:00:00Z')), 3600_000);
  assert.equal(offsetAtMs('Europe/Berlin', Date.parse('2025-07-15T12:00:00Z')), 7200_000);
  assert.equal(offsetAtMs('America/New_York', Date.parse('2025-01-15T12:00:00Z')), -5 * 3600_000);
  assert.equal(offsetAtMs('Asia/Kathmandu', Date.parse('2025-01-15T12:00:00Z')), (5 * 60 + 45) * 60_000);
});

test('local to UTC: repeated wall times take the earlier instant, skipped ones move forward by the gap', () => {
  const toUtc = (wall: string): string => new Date(localToUtcMs('Europe/Berlin', Date.parse(`${wall}Z`))).toISOString();
  assert.equal(toUtc('2025-03-30T01:30:00'), '2025-03-30T00:30:00.000Z');
  assert.equal(toUtc('2025-03-30T02:30:00'), '2025-03-30T01:30:00.000Z'); // does not exist: 03:30 CEST
  assert.equal(toUtc('2025-10-26T02:30:00'), '2025-10-26T00:30:00.000Z'); // twice: the CEST one
  assert.equal(toUtc('2025-10-26T03:30:00'), '2025-10-26T02:30:00.000Z');
});

test('bucket starts: UTC epoch multiples, local midnights, offset changes', () => {
  assert.deepEqual(iso(bucketStarts(us('2025-01-01T10:02:00Z'), us('2025-01-01T10:12:00Z'), 300, 'UTC')), [
    '2025-01-01T10:00:00Z',
    '2025-01-01T10:05:00Z',
    '2025-01-01T10:10:00Z',
  ]);
  assert.deepEqual(iso(bucketStarts(us('2025-10-25T12:00:00Z'), us('2025-10-28T00:00:00Z'), 86400, 'Europe/Berlin')), [
    '2025-10-24T22:00:00Z',
    '2025-10-25T22:00:00Z',
    '2025-10-26T23:00:00Z',
    '2025-10-27T23:00:00Z',
  ]);
  // half-hour buckets over the autumn change: the repeated local hour folds into the 02:30 CEST bucket
  assert.deepEqual(iso(bucketStarts(us('2025-10-26T00:00:00Z'), us('2025-10-26T03:00:00Z'), 1800, 'Europe/Berlin')), [
    '2025-10-26T00:00:00Z',
    '2025-10-26T00:30:00Z',
    '2025-10-26T02:00:00Z',
    '2025-10-26T02:30:00Z',
  ]);
  // over the spring change the skipped local hour produces no bucket twice
  assert.deepEqual(iso(bucketStarts(us('2025-03-30T00:00:00Z'), us('2025-03-30T02:00:00Z'), 1800, 'Europe/Berlin')), [
    '2025-03-30T00:00:00Z',
    '2025-03-30T00:30:00Z',
    '2025-03-30T01:00:00Z',
    '2025-03-30T01:30:00Z',
  ]);
  assert.deepEqual(bucketStarts(us('2025-01-01T00:00:00Z'), us('2025-01-01T00:00:00Z'), 300, 'UTC'), []);
});

test('bucketIndex finds the last start at or before an instant', () => {
  const starts = [10, 20, 30];
  assert.deepEqual(
    [5, 10, 19, 20, 29, 30, 1000].map((t) => bucketIndex(starts, t)),
    [-1, 0, 0, 1, 1, 2, 2],
  );
  assert.equal(bucketIndex([], 5), -1);
});

test('bucket starts across DST changes and non-hour offsets', () => {
  const cases: Array<{ name: string; zone: string; from: string; to: string; seconds: number; want: string[] }> = [
    {
      // local midnights; the day of the spring change lasts 23 h
      name: 'Berlin daily over the spring change',
      zone: 'Europe/Berlin',
      from: '2025-03-29T12:00:00Z',
      to: '2025-03-31T12:00:00Z',
      seconds: 86400,
      want: ['2025-03-28T23:00:00Z', '2025-03-29T23:00:00Z', '2025-03-30T22:00:00Z'],
    },
    {
      // 00:00–06:00 local holds only 5 UTC hours on the spring change
      name: 'Berlin 6-hourly over the spring change',
      zone: 'Europe/Berlin',
      from: '2025-03-29T23:00:00Z',
      to: '2025-03-30T11:00:00Z',
      seconds: 21600,
      want: ['2025-03-29T23:00:00Z', '2025-03-30T04:00:00Z', '2025-03-30T10:00:00Z'],
    },
    {
      // 02:00 local is skipped: the 02:00 bucket begins at 03:00 EDT, the same instant as the 03:00 one
      name: 'New York hourly over the spring change',
      zone: 'America/New_York',
      from: '2025-03-09T05:00:00Z',
      to: '2025-03-09T09:00:00Z',
      seconds: 3600,
      want: ['2025-03-09T05:00:00Z', '2025-03-09T06:00:00Z', '2025-03-09T07:00:00Z', '2025-03-09T08:00:00Z'],
    },
    {
      // 01:00 local happens twice: its bucket starts at the EDT one and spans two UTC hours
      name: 'New York hourly over the autumn change',
      zone: 'America/New_York',
      from: '2025-11-02T04:00:00Z',
      to: '2025-11-02T09:00:00Z',
      seconds: 3600,
      want: ['2025-11-02T04:00:00Z', '2025-11-02T05:00:00Z', '2025-11-02T07:00:00Z', '2025-11-02T08:00:00Z'],
    },
    {
      name: 'New York daily over the autumn change (a 25-hour day)',
      zone: 'America/New_York',
      from: '2025-11-01T12:00:00Z',
      to: '2025-11-03T12:00:00Z',
      seconds: 86400,
      want: ['2025-11-01T04:00:00Z', '2025-11-02T04:00:00Z', '2025-11-03T05:00:00Z'],
    },
    {
      name: 'Kolkata (+05:30) hourly buckets start on the local hour',
      zone: 'Asia/Kolkata',
      from: '2025-01-01T00:00:00Z',
      to: '2025-01-01T02:00:00Z',
      seconds: 3600,
      want: ['2024-12-31T23:30:00Z', '2025-01-01T00:30:00Z', '2025-01-01T01:30:00Z'],
    },
    {
      name: 'Kathmandu (+05:45) local midnights',
      zone: 'Asia/Kathmandu',
      from: '2025-01-01T00:00:00Z',
      to: '2025-01-02T00:00:00Z',
      seconds: 86400,
      want: ['2024-12-31T18:15:00Z', '2025-01-01T18:15:00Z'],
    },
    {
      name: 'Lord Howe: a 30-minute DST change',
      zone: 'Australia/Lord_Howe',
      from: '2025-04-05T14:00:00Z',
      to: '2025-04-05T16:00:00Z',
      seconds: 1800,
      // 02:00 LHDT (+11) falls back to 01:30 LHST (+10:30): the repeated half hour folds into 01:30
      want: ['2025-04-05T14:00:00Z', '2025-04-05T14:30:00Z', '2025-04-05T15:30:00Z'],
    },
  ];
  for (const c of cases) assert.deepEqual(iso(bucketStarts(us(c.from), us(c.to), c.seconds, c.zone)), c.want, c.name);
});

test('bucket starts far from a transition match a Temporal conversion of every bucket', () => {
  // the fast path subtracts a constant offset; converting each local start directly must agree
  const from = us('2025-01-01T00:00:00Z');
  const to = us('2026-01-01T00:00:00Z');
  for (const zone of [
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
  ]) {
    for (const seconds of [3163, 86400]) {
      const step = seconds * 1_000_000;
      const direct: number[] = [];
      const first = Math.floor((from + offsetAtMs(zone, from / 1000) * 1000) / step) * step;
      for (let local = first; ; local += step) {
        const utc = localToUtcMs(zone, local / 1000) * 1000;
        if (utc >= to) break;
        if (direct.length === 0 || utc > direct[direct.length - 1]!) direct.push(utc);
      }
      assert.deepEqual(bucketStarts(from, to, seconds, zone), direct, `${zone} ${seconds}`);
    }
  }
});

test('transitionsBetween lists the offset changes of a window', () => {
  const at = (t: string): number => Date.parse(t);
  assert.deepEqual(
    transitionsBetween('Europe/Berlin', at('2025-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z')).map((t) =>
      new Date(t).toISOString(),
    ),
    ['2025-03-30T01:00:00.000Z', '2025-10-26T01:00:00.000Z'],
  );
  assert.deepEqual(transitionsBetween('Asia/Kolkata', at('2025-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z')), []);
  assert.deepEqual(transitionsBetween('UTC', at('2025-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z')), []);
});
