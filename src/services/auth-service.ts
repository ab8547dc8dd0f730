import { createHash, randomBytes } from 'node:crypto';
import { AuthError } from '../errors/app-error.js';
import type { EntityRole } from '../domain/roles.js';
import type { ApiKeyRecord, TraceStore, UserRecord } from '../store/types.js';

/** Who is calling: resolved from an API key on every authenticated request. */
export interface Caller {
  userId: string;
  username: string;
  defaultEntity: string;
  /** An instance admin key: every entity, every role's rights. */
  isAdmin: boolean;
  /** Entities the user belongs to, whatever the role. */
  entities: ReadonlySet<string>;
  /** The user's role in each of its entities (docs/roles-and-audit.md). */
  roles: ReadonlyMap<string, EntityRole>;
  /** The API key the request came with (a browser session's key too); null for the operator's CLI. */
  keyId: string | null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** 40 hex characters: the length W&B clients expect of an API key. */
export function generateApiKey(): string {
  return randomBytes(20).toString('hex');
}

/**
 * Memberships are remembered briefly so a busy client does not cost a second lookup per request.
 * The key itself is looked up on every request (one indexed read): a key revoked by the CLI,
 * which runs in another process, must stop working at once, and no cache here could hear of it.
 */
const ENTITY_CACHE_TTL_MS = 5_000;
const ENTITY_CACHE_MAX = 10_000;

export class AuthService {
  #entities = new Map<string, { roles: ReadonlyMap<string, EntityRole>; expires: number }>();

  constructor(private readonly store: TraceStore) {}

  /** The caller owning `key`; AuthError when the key is unknown or revoked. */
  async authenticate(key: string): Promise<Caller> {
    const record = await this.store.auth.findKeyByHash(hashApiKey(key));
    if (!record || record.revoked_at !== null) throw new AuthError('Invalid API key');
    return this.callerOf(record);
  }

  /** The caller a (live) key record stands for; also used for browser sessions (session-service.ts). */
  async callerOf(record: ApiKeyRecord & { user: UserRecord }): Promise<Caller> {
    const roles = await this.#rolesOf(record.user_id);
    return {
      userId: record.user.id,
      username: record.user.username,
      defaultEntity: record.user.default_entity,
      isAdmin: record.is_admin,
      entities: new Set(roles.keys()),
      roles,
      keyId: record.id,
    };
  }

  /** Drops the user's remembered roles on this node (after a role change; other nodes follow within ENTITY_CACHE_TTL_MS). */
  forgetUser(userId: string): void {
    this.#entities.delete(userId);
  }

  async #rolesOf(userId: string): Promise<ReadonlyMap<string, EntityRole>> {
    const cached = this.#entities.get(userId);
    if (cached && cached.expires > Date.now()) return cached.roles;
    const roles = new Map((await this.store.auth.listMemberships(userId)).map((m) => [m.entity, m.role] as const));
    if (this.#entities.size >= ENTITY_CACHE_MAX) this.#entities.clear();
    this.#entities.set(userId, { roles, expires: Date.now() + ENTITY_CACHE_TTL_MS });
    return roles;
  }

  /** Every key, newest first, revoked ones included; never the secret (only its prefix is kept). */
  listKeys(): Promise<ApiKeyRecord[]> {
    return this.store.auth.listApiKeys();
  }

  /** Revokes a key; false when there is no key with that id. Takes effect on the next request. */
  revokeKey(id: string): Promise<boolean> {
    return this.store.auth.revokeApiKey(id);
  }

  /**
   * Creates a key for the user `username` (created when missing) as a member of `entity`.
   * Returns the plain key: it is shown once and only its hash is kept.
   */
  async createKey(opts: {
    entity: string;
    username?: string;
    admin?: boolean;
    key?: string;
  }): Promise<{ key: string; record: Pick<ApiKeyRecord, 'id' | 'prefix'> & { username: string; userId: string } }> {
    const username = opts.username ?? opts.entity;
    const user = await this.store.auth.ensureUser(username, opts.entity);
    await this.store.auth.addMembership(user.id, opts.entity);
    this.#entities.delete(user.id);
    const key = opts.key ?? generateApiKey();
    const id = `key_${randomBytes(6).toString('hex')}`;
    const prefix = key.slice(0, 6);
    await this.store.auth.createApiKey({
      id,
      user_id: user.id,
      key_hash: hashApiKey(key),
      prefix,
      is_admin: opts.admin ?? false,
    });
    return { key, record: { id, prefix, username, userId: user.id } };
  }

  /**
   * Makes sure an admin key exists: the configured one, or on a first start with no keys at all a
   * generated one (returned so the caller can show and save it).
   */
  async bootstrapAdmin(configuredKey: string | undefined, adminEntity: string): Promise<string | null> {
    if (configuredKey) {
      const existing = await this.store.auth.findKeyByHash(hashApiKey(configuredKey));
      if (!existing) await this.createKey({ entity: adminEntity, username: 'admin', admin: true, key: configuredKey });
      return null;
    }
    if ((await this.store.auth.countApiKeys()) > 0) return null;
    const { key } = await this.createKey({ entity: adminEntity, username: 'admin', admin: true });
    return key;
  }
}
