import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InsufficientStorageError, StoreUnavailableError } from '../../src/errors/app-error.js';
import { diskFullCause, DiskState } from '../../src/store/sql/disk-state.js';
import { mapPgError } from '../../src/store/postgres/pg-support.js';

/** Disk full on either store is a 507 naming the cause (docs/reliability-backpressure.md). */

const withCode = (code: string, message = 'boom'): Error => Object.assign(new Error(message), { code });

test('PostgreSQL 53100 disk_full maps to 507 naming the cause; the rest of class 53 stays 502', () => {
  const full = mapPgError(withCode('53100', 'could not extend file "base/1/2": No space left on device'));
  assert.ok(full instanceof InsufficientStorageError);
  assert.equal(full.status, 507);
  assert.equal(
    full.message,
    'Insufficient storage: the database disk is full (PostgreSQL 53100 disk_full); writes resume once space is freed',
  );
  assert.ok(mapPgError(withCode('53200')) instanceof StoreUnavailableError);
  assert.ok(mapPgError(withCode('53300')) instanceof StoreUnavailableError);
});

test('diskFullCause knows SQLite, Node and PostgreSQL codes only', () => {
  assert.equal(diskFullCause(withCode('SQLITE_FULL')), 'SQLITE_FULL');
  assert.equal(diskFullCause(withCode('ENOSPC')), 'ENOSPC');
  assert.equal(diskFullCause(withCode('53100')), 'PostgreSQL 53100 disk_full');
  assert.equal(diskFullCause(withCode('SQLITE_BUSY')), null);
  assert.equal(diskFullCause(new Error('x')), null);
  assert.equal(diskFullCause(null), null);
});

test('DiskState: degraded from a disk-full failure until a write commits', () => {
  const state = new DiskState();
  assert.equal(state.reason, null);
  assert.equal(state.noteFailure(withCode('SQLITE_BUSY')), null);
  assert.equal(state.reason, null);
  assert.equal(state.noteFailure(withCode('SQLITE_FULL')), 'SQLITE_FULL');
  assert.equal(state.reason, 'SQLITE_FULL');
  assert.ok(state.since !== null);
  // another failure keeps it degraded
  state.noteFailure(withCode('SQLITE_BUSY'));
  assert.equal(state.reason, 'SQLITE_FULL');
  state.noteCommit();
  assert.equal(state.reason, null);
  assert.equal(state.since, null);
});
