import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/domain/ids.js';
import type { AuditRecord } from '../../../src/store/types.js';
import { forEachAdapter, guard } from './adapters.js';

/** Membership roles (viewer since migration 12) and the audit log on every adapter (docs/roles-and-audit.md). */
forEachAdapter('roles and audit log', (store) => {
  test(
    'a membership can be admin, member or viewer; a role the CHECK does not know is refused',
    guard(async () => {
      const vera = await store().auth.ensureUser('vera', 'acme');
      await store().auth.addMembership(vera.id, 'acme');
      await store().auth.addMembership(vera.id, 'zeta');
      assert.deepEqual(await store().auth.listMemberships(vera.id), [
        { entity: 'acme', role: 'member' },
        { entity: 'zeta', role: 'member' },
      ]);
      await store().auth.setMembershipRole(vera.id, 'acme', 'viewer');
      await store().auth.setMembershipRole(vera.id, 'zeta', 'admin');
      assert.deepEqual(await store().auth.listMemberships(vera.id), [
        { entity: 'acme', role: 'viewer' },
        { entity: 'zeta', role: 'admin' },
      ]);
      await assert.rejects(store().auth.setMembershipRole(vera.id, 'acme', 'owner' as 'admin'));
      assert.deepEqual((await store().auth.listMemberships(vera.id))[0], { entity: 'acme', role: 'viewer' });
    }),
  );

  const entry = (entity: string, action: AuditRecord['action'], target: string): AuditRecord => ({
    entity,
    id: uuidv7(),
    at: Date.now() * 1000,
    user_id: 'u1',
    username: 'alice',
    key_id: 'key_1',
    action,
    target,
    details: JSON.stringify({ target }),
  });

  test(
    'entries are kept per entity, listed newest first, paged by id and filtered by action',
    guard(async () => {
      const written: AuditRecord[] = [];
      for (let i = 0; i < 5; i++) {
        const e = entry('audited', i % 2 === 0 ? 'key.created' : 'calls.deleted', `t${i}`);
        written.push(e);
        await store().audit.append(e);
      }
      await store().audit.append(entry('elsewhere', 'key.created', 'x'));
      const newest = [...written].reverse();
      assert.deepEqual(await store().audit.list('audited', { limit: 10 }), newest);
      const first = await store().audit.list('audited', { limit: 2 });
      assert.deepEqual(first, newest.slice(0, 2));
      const next = await store().audit.list('audited', { limit: 2, before: first[1]!.id });
      assert.deepEqual(next, newest.slice(2, 4));
      const keys = await store().audit.list('audited', { limit: 10, action: 'key.created' });
      assert.deepEqual(
        keys.map((e) => e.target),
        ['t4', 't2', 't0'],
      );
      assert.deepEqual(await store().audit.list('nobody', { limit: 10 }), []);
      assert.equal((await store().audit.list('elsewhere', { limit: 10 })).length, 1);
    }),
  );
});
