import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectionCapFor, openFileLimit } from '../../src/config/fd-limit.js';
import { loadConfig } from '../../src/config/config.js';
import { shedRoom } from '../../src/plugins/connection-limits.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                1048576              files
`;

test('the soft open-file limit is read from /proc/self/limits; unreadable is null', () => {
  assert.equal(
    openFileLimit(() => LIMITS),
    20_000,
  );
  assert.equal(
    openFileLimit(() => {
      throw new Error('ENOENT');
    }),
    null,
  );
  assert.equal(
    openFileLimit(() => 'nothing here'),
    null,
  );
});

test('the connection cap keeps a reserve of descriptors', () => {
  for (const [limit, cap] of [
    [1_024, 768],
    [20_000, 18_000],
    [256, 192],
    [65_536, 58_982],
    [null, 768],
  ] as const)
    assert.equal(connectionCapFor(limit), cap, String(limit));
  assert.equal(shedRoom(18_000, 20_000), 968);
  assert.equal(shedRoom(768, 1_024), 96);
  assert.equal(shedRoom(1_000, 1_000), 0);
});

test('HEDDLE_MAX_CONNECTIONS unset derives the cap; set, it wins', () => {
  assert.equal(loadConfig({}, 20_000).maxConnections, 18_000);
  assert.equal(loadConfig({ HEDDLE_MAX_CONNECTIONS: '100' }, 20_000).maxConnections, 100);
});
