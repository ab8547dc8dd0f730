import { createHash, randomBytes } from 'node:crypto';
import { AuthError } from '../errors/app-error.js';
import type { ApiKeyRecord, TraceStore } from '../store/types.js';

/** Who is calling: resolved from an API key on every authenticated request. */
export interface Caller {
  userId: string;
  username: string;
  defaultEntity: string;
  isAdmin: boolean;
  entities: ReadonlySet<string>;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** 40 hex characters: the length W&B clients expect of an API key. */
export function generateApiKey(): string {
  return randomBytes(20).toString('hex');
}

/** Verified keys are remembered briefly so a busy client does not cost a lookup per request. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

export class AuthService {
  #cache = new Map<string, { caller: Caller; expires: number }>();

  constructor(private readonly store: TraceStore) {}

  /** The caller owning `key`; AuthError when the key is unknown or revoked. */
  async authenticate(key: string): Promise<Caller> {
    const hash = hashApiKey(key);
    const cached = this.#cache.get(hash);
    if (cached && cached.expires > Date.now()) return cached.caller;
    const record = await this.store.auth.findKeyByHash(hash);
    if (!record || record.revoked_at !== null) throw new AuthError('Invalid API key');
    const entities = new Set(await this.store.auth.listEntities(record.user_id));
    const caller: Caller = {
      userId: record.user.id,
      username: record.user.username,
      defaultEntity: record.user.default_entity,
      isAdmin: record.is_admin,
      entities,
    };
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
    this.#cache.set(hash, { caller, expires: Date.now() + CACHE_TTL_MS });
    return caller;
  }

  /**
   * Creates a key for the user `username` (created when missing) as a member of `entity`.
   * Returns the plain key: it is shown once and only its hash is kept.
   */
  async createKey(opts: { entity: string; username?: string; admin?: boolean; key?: string }): Promise<{ key: string; record: Pick<ApiKeyRecord, 'id' | 'prefix'> & { username: string } }> {
    const username = opts.username ?? opts.entity;
    const user = await this.store.auth.ensureUser(username, opts.entity);
    await this.store.auth.addMembership(user.id, opts.entity);
    const key = opts.key ?? generateApiKey();
    const id = `key_${randomBytes(6).toString('hex')}`;
    const prefix = key.slice(0, 6);
    await this.store.auth.createApiKey({ id, user_id: user.id, key_hash: hashApiKey(key), prefix, is_admin: opts.admin ?? false });
    return { key, record: { id, prefix, username } };
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
