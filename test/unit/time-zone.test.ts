import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketIndex, bucketStarts, canonicalTimeZone, offsetAtMs, ZoneOffsets } from '../../src/domain/time-zone.js';

/** Wall-clock bucket alignment of `/calls/stats` (calls spec §4.9) through Intl. */

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
  const z = new ZoneOffsets('Europe/Berlin', Date.parse('2025-03-01T00:00:00Z'), Date.parse('2025-11-01T00:00:00Z'));
  const local = (wall: string): number => Date.parse(`${wall}Z`);
  assert.equal(new Date(z.localToUtc(local('2025-03-30T01:30:00'))).toISOString(), '2025-03-30T00:30:00.000Z');
  assert.equal(new Date(z.localToUtc(local('2025-03-30T02:30:00'))).toISOString(), '2025-03-30T01:30:00.000Z'); // does not exist: 03:30 CEST
  assert.equal(new Date(z.localToUtc(local('2025-10-26T02:30:00'))).toISOString(), '2025-10-26T00:30:00.000Z'); // twice: the CEST one
  assert.equal(new Date(z.localToUtc(local('2025-10-26T03:30:00'))).toISOString(), '2025-10-26T02:30:00.000Z');
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
