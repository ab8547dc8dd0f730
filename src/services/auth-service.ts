import { createHash, randomBytes } from 'node:crypto';
import { AuthError } from '../errors/app-error.js';
import type { ApiKeyRecord, TraceStore, UserRecord } from '../store/types.js';

/** Who is calling: resolved from an API key on every authenticated request. */
export interface Caller {
  userId: string;
  username: string;
  defaultEntity: string;
  isAdmin: boolean;
  entities: ReadonlySet<string>;
  /** The API key the request came with (a browser session: the key that signed in); the rate limit's bucket. */
  keyId?: string;
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
  #entities = new Map<string, { entities: ReadonlySet<string>; expires: number }>();

  constructor(private readonly store: TraceStore) {}

  /** The caller owning `key`; AuthError when the key is unknown or revoked. */
  async authenticate(key: string): Promise<Caller> {
    const record = await this.store.auth.findKeyByHash(hashApiKey(key));
    if (!record || record.revoked_at !== null) throw new AuthError('Invalid API key');
    return this.callerOf(record);
  }

  /** The caller a (live) key record stands for; also used for browser sessions (session-service.ts). */
  async callerOf(record: ApiKeyRecord & { user: UserRecord }): Promise<Caller> {
    return {
      userId: record.user.id,
      username: record.user.username,
      defaultEntity: record.user.default_entity,
      isAdmin: record.is_admin,
      entities: await this.#entitiesOf(record.user_id),
      keyId: record.id,
    };
  }

  async #entitiesOf(userId: string): Promise<ReadonlySet<string>> {
    const cached = this.#entities.get(userId);
    if (cached && cached.expires > Date.now()) return cached.entities;
    const entities = new Set(await this.store.auth.listEntities(userId));
    if (this.#entities.size >= ENTITY_CACHE_MAX) this.#entities.clear();
    this.#entities.set(userId, { entities, expires: Date.now() + ENTITY_CACHE_TTL_MS });
    return entities;
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
