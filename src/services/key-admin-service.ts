import { ForbiddenError, InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import { formatMicros } from '../domain/time.js';
import type { KeyCreateReq, KeyCreateRes, KeyQueryReq, KeyQueryRes, KeyRevokeReq, KeySchema } from '../schemas/keys.js';
import type { ApiKeyRecord, TraceStore } from '../store/types.js';
import type { AuditLog, MembershipService } from './audit-service.js';
import type { AuthService, Caller } from './auth-service.js';

function toView(k: ApiKeyRecord): KeySchema {
  return {
    id: k.id,
    prefix: k.prefix,
    username: k.username,
    admin: k.is_admin,
    created_at: formatMicros(k.created_at),
    revoked_at: k.revoked_at === null ? null : formatMicros(k.revoked_at),
  };
}

/**
 * API keys managed over HTTP. Who may: the instance admin (an admin key) for every entity; an
 * admin of an entity (memberships.role) for keys of users who belong to no entity it does not
 * administer, so a key it makes or revokes never reaches past its own entities. Roles are read
 * from the store on every call, and keys are looked up on every request (auth-service.ts), so a
 * revocation holds at once on every node.
 */
export class KeyAdminService {
  constructor(
    private readonly store: TraceStore,
    private readonly auth: AuthService,
    private readonly audit: AuditLog,
    private readonly memberships: MembershipService,
  ) {}

  async create(caller: Caller, req: KeyCreateReq): Promise<KeyCreateRes> {
    await this.#assertAdministers(caller, req.entity);
    const admin = req.admin === true;
    if (admin && !caller.isAdmin) throw new ForbiddenError('Only an instance admin key can create admin keys');
    const username = req.username ?? req.entity;
    const existing = await this.store.auth.findUser(username);
    if (existing) await this.#assertManagesUser(caller, existing.id, username);
    if (req.entity_admin === true && req.role !== undefined && req.role !== 'admin')
      throw new InvalidRequestError(`entity_admin: true contradicts role "${req.role}"`);
    const role = req.entity_admin === true ? 'admin' : (req.role ?? (await this.memberships.roleForNewKey(req.entity)));
    const member = existing
      ? (await this.store.auth.listMemberships(existing.id)).some((m) => m.entity === req.entity)
      : false;
    // an existing member's role changes first, so a refused change (the last admin) makes no key
    if (role !== undefined && member) await this.memberships.setRole(caller, { entity: req.entity, username, role });
    const { key, record } = await this.auth.createKey({ entity: req.entity, username, admin });
    await this.audit.record(caller, req.entity, 'key.created', record.id, { username, admin, prefix: record.prefix });
    // a new member starts as `member`; a role given sets it (audited as a role change)
    if (role !== undefined && !member) await this.memberships.setRole(caller, { entity: req.entity, username, role });
    const current = (await this.store.auth.listMemberships(record.userId)).find((m) => m.entity === req.entity);
    const entityAdmin = current?.role === 'admin';
    return {
      id: record.id,
      key,
      prefix: record.prefix,
      username,
      entity: req.entity,
      entity_admin: entityAdmin,
      role: current?.role ?? 'member',
      admin,
    };
  }

  async query(caller: Caller, req: KeyQueryReq): Promise<KeyQueryRes> {
    if (req.entity !== undefined) {
      await this.#assertAdministers(caller, req.entity);
      return { keys: (await this.store.auth.listApiKeysOfEntity(req.entity)).map(toView) };
    }
    if (caller.isAdmin) return { keys: (await this.store.auth.listApiKeys()).map(toView) };
    const byId = new Map<string, ApiKeyRecord>();
    for (const entity of await this.#administered(caller)) {
      for (const k of await this.store.auth.listApiKeysOfEntity(entity)) byId.set(k.id, k);
    }
    const keys = [...byId.values()].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
    return { keys: keys.map(toView) };
  }

  async revoke(caller: Caller, req: KeyRevokeReq): Promise<KeySchema> {
    await this.#assertAdministers(caller, req.entity);
    const key = await this.store.auth.findApiKey(req.id);
    const memberships = key ? await this.store.auth.listMemberships(key.user_id) : [];
    if (!key || !memberships.some((m) => m.entity === req.entity))
      throw new NotFoundError(`No key with id ${req.id} in entity ${req.entity}`);
    if (key.is_admin && !caller.isAdmin) throw new ForbiddenError('Only an instance admin key can revoke admin keys');
    await this.#assertManagesUser(caller, key.user_id, key.username);
    await this.store.auth.revokeApiKey(key.id);
    await this.audit.record(caller, req.entity, 'key.revoked', key.id, { username: key.username, prefix: key.prefix });
    return toView((await this.store.auth.findApiKey(key.id)) ?? key);
  }

  async #administered(caller: Caller): Promise<Set<string>> {
    const memberships = await this.store.auth.listMemberships(caller.userId);
    return new Set(memberships.filter((m) => m.role === 'admin').map((m) => m.entity));
  }

  async #assertAdministers(caller: Caller, entity: string): Promise<void> {
    if (caller.isAdmin || (await this.#administered(caller)).has(entity)) return;
    throw new ForbiddenError(`You do not administer entity ${entity}`);
  }

  async #assertManagesUser(caller: Caller, userId: string, username: string): Promise<void> {
    if (caller.isAdmin) return;
    const administered = await this.#administered(caller);
    const memberships = await this.store.auth.listMemberships(userId);
    if (memberships.every((m) => administered.has(m.entity))) return;
    throw new ForbiddenError(`User ${username} also belongs to entities you do not administer`);
  }
}
