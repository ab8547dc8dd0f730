import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachAdapter, guard } from './adapters.js';

/** The auth store on every adapter; this suite owns its store, so key counts are exact. */
forEachAdapter('auth store', (store) => {
  test(
    'users are created once per name; memberships are idempotent and listed sorted',
    guard(async () => {
      const alice = await store().auth.ensureUser('alice', 'acme');
      assert.equal(alice.username, 'alice');
      assert.equal(alice.default_entity, 'acme');
      assert.ok(Number.isInteger(alice.created_at));
      const again = await store().auth.ensureUser('alice', 'ignored');
      assert.deepEqual(again, alice);
      const both = await Promise.all([store().auth.ensureUser('carol', 'c'), store().auth.ensureUser('carol', 'c')]);
      assert.equal(both[0].id, both[1].id);
      await store().auth.addMembership(alice.id, 'zeta');
      await store().auth.addMembership(alice.id, 'acme');
      await store().auth.addMembership(alice.id, 'acme');
      assert.deepEqual(await store().auth.listEntities(alice.id), ['acme', 'zeta']);
      assert.equal(await store().auth.entityExists('zeta'), true);
      assert.equal(await store().auth.entityExists('nobody'), false);
    }),
  );

  test(
    'keys: found by hash with their user, listed newest first, revoked, counted',
    guard(async () => {
      const bob = await store().auth.ensureUser('bob', 'other');
      const before = await store().auth.countApiKeys();
      await store().auth.createApiKey({ id: 'k1', user_id: bob.id, key_hash: 'h1', prefix: 'p1', is_admin: false });
      await new Promise((resolve) => setTimeout(resolve, 2));
      await store().auth.createApiKey({ id: 'k2', user_id: bob.id, key_hash: 'h2', prefix: 'p2', is_admin: true });
      // the same hash again is a no-op
      await store().auth.createApiKey({ id: 'k3', user_id: bob.id, key_hash: 'h2', prefix: 'p3', is_admin: false });
      assert.equal(await store().auth.countApiKeys(), before + 2);
      const found = await store().auth.findKeyByHash('h2');
      assert.equal(found?.id, 'k2');
      assert.equal(found?.is_admin, true);
      assert.equal(found?.revoked_at, null);
      assert.deepEqual(found?.user, bob);
      assert.equal(await store().auth.findKeyByHash('nope'), null);
      const listed = (await store().auth.listApiKeys()).filter((k) => k.user_id === bob.id);
      assert.deepEqual(
        listed.map((k) => [k.id, k.prefix, k.is_admin, k.username]),
        [
          ['k2', 'p2', true, 'bob'],
          ['k1', 'p1', false, 'bob'],
        ],
      );
      assert.equal(await store().auth.revokeApiKey('k1'), true);
      assert.equal(await store().auth.revokeApiKey('k1'), true, 'revoking again still names a key');
      assert.equal(await store().auth.revokeApiKey('missing'), false);
      const revoked = await store().auth.findKeyByHash('h1');
      assert.ok(revoked?.revoked_at != null && revoked.revoked_at > 0);
    }),
  );

  test(
    'projects are recorded once, with their first creator',
    guard(async () => {
      assert.equal(await store().auth.findProject('acme/demo'), null);
      await store().auth.ensureProject('acme/demo', 'acme', 'user-1');
      await store().auth.ensureProject('acme/demo', 'acme', 'user-2');
      const project = await store().auth.findProject('acme/demo');
      assert.equal(project?.created_by, 'user-1');
      assert.equal(project?.entity, 'acme');
      assert.equal(await store().auth.entityExists('acme'), true, 'an entity with a project exists');
    }),
  );

  test(
    'entity admins and key management reads: roles, users by name, keys by id and by entity',
    guard(async () => {
      const dora = await store().auth.ensureUser('dora', 'ent-a');
      const erin = await store().auth.ensureUser('erin', 'ent-b');
      await store().auth.addMembership(dora.id, 'ent-a');
      await store().auth.addMembership(dora.id, 'ent-b');
      await store().auth.addMembership(erin.id, 'ent-b');
      assert.deepEqual(await store().auth.listMemberships(dora.id), [
        { entity: 'ent-a', role: 'member' },
        { entity: 'ent-b', role: 'member' },
      ]);
      await store().auth.setMembershipRole(dora.id, 'ent-a', 'admin');
      await store().auth.setMembershipRole(dora.id, 'not-a-member', 'admin');
      assert.deepEqual(await store().auth.listMemberships(dora.id), [
        { entity: 'ent-a', role: 'admin' },
        { entity: 'ent-b', role: 'member' },
      ]);
      // adding a membership again keeps its role
      await store().auth.addMembership(dora.id, 'ent-a');
      assert.equal((await store().auth.listMemberships(dora.id))[0]!.role, 'admin');
      assert.deepEqual(await store().auth.findUser('dora'), dora);
      assert.equal(await store().auth.findUser('nobody-here'), null);

      await store().auth.createApiKey({ id: 'kd', user_id: dora.id, key_hash: 'hd', prefix: 'pd', is_admin: false });
      await new Promise((resolve) => setTimeout(resolve, 2));
      await store().auth.createApiKey({ id: 'ke', user_id: erin.id, key_hash: 'he', prefix: 'pe', is_admin: false });
      const kd = await store().auth.findApiKey('kd');
      assert.deepEqual([kd?.id, kd?.username, kd?.user_id, kd?.revoked_at], ['kd', 'dora', dora.id, null]);
      assert.equal(await store().auth.findApiKey('nope'), null);
      assert.deepEqual(
        (await store().auth.listApiKeysOfEntity('ent-b')).map((k) => k.id),
        ['ke', 'kd'],
      );
      assert.deepEqual(
        (await store().auth.listApiKeysOfEntity('ent-a')).map((k) => k.id),
        ['kd'],
      );
      assert.deepEqual(await store().auth.listApiKeysOfEntity('ent-none'), []);
    }),
  );
});
