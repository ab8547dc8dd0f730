import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StartupError, storeFailure } from '../../src/cli/startup-errors.js';

/** How `serve` words a store it cannot open: one line for a setting or a server to fix, null for a bug. */

const postgres = { databaseUrl: 'postgres://heddle:secret@db:5432/heddle', dataDir: '/data' };
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

test('a PostgreSQL server that cannot load its own files is one line saying to restart it, password hidden', () => {
  const failure = storeFailure(
    pgError('58P01', 'could not load library "/usr/lib/postgresql/15/lib/plpgsql.so": undefined symbol'),
    postgres,
  );
  assert.ok(failure instanceof StartupError);
  assert.match(failure.message, /^Cannot use PostgreSQL at postgres:\/\/heddle@db:5432\/heddle: .*restart it/);
  assert.doesNotMatch(failure.message, /secret|\n/);
});

test('known PostgreSQL codes are reasons; an unknown error is not (it is a bug, with its stack)', () => {
  assert.match(storeFailure(pgError('3D000', 'database "x" does not exist'), postgres)!.message, /does not exist/);
  assert.equal(storeFailure(pgError('42P01', 'relation "calls" does not exist'), postgres), null);
  assert.equal(storeFailure(new Error('boom'), postgres), null);
});
