import { randomBytes } from 'node:crypto';
import { AuthError } from '../errors/app-error.js';
import type { TraceStore } from '../store/types.js';
import { hashApiKey, type AuthService, type Caller } from './auth-service.js';
import { writableEntities } from './project-access.js';

/** The cookie holding a browser session's token (never the API key itself). */
export const SESSION_COOKIE = 'heddle_session';

export interface SessionView {
  user: { id: string; username: string };
  entities: string[];
  /** Entities where the user may write (not those where it is a viewer), so the UI shows only what works. */
  writable_entities: string[];
  /** An instance admin key: every entity, read and write. */
  instance_admin: boolean;
}

/**
 * Browser sessions of the web UI: a random opaque token made from an API key, kept in the store
 * only as its SHA-256 hash with the key's id, so any node accepts it and revoking the key ends it.
 */
export class SessionService {
  constructor(
    private readonly store: TraceStore,
    private readonly auth: AuthService,
    /** How long a session lives, in seconds (HEDDLE_SESSION_TTL_SECONDS). */
    readonly ttlSeconds: number,
  ) {}

  /** Makes a session from an API key; AuthError when the key is unknown or revoked. */
  async signIn(apiKey: string): Promise<{ token: string; caller: Caller }> {
    const record = await this.store.auth.findKeyByHash(hashApiKey(apiKey));
    if (!record || record.revoked_at !== null) throw new AuthError('Invalid API key');
    const token = randomBytes(32).toString('base64url');
    const now = Date.now() * 1000;
    await this.store.auth.createSession({
      token_hash: hashApiKey(token),
      user_id: record.user_id,
      api_key_id: record.id,
      created_at: now,
      expires_at: now + this.ttlSeconds * 1_000_000,
    });
    return { token, caller: await this.auth.callerOf(record) };
  }

  /** The caller of a live session; AuthError when the token is unknown, expired or its key revoked. */
  async resolve(token: string): Promise<Caller> {
    const record = await this.store.auth.findSession(hashApiKey(token), Date.now() * 1000);
    if (!record) throw new AuthError('Session expired or signed out: sign in again');
    return this.auth.callerOf(record);
  }

  /** Ends the session (a no-op for an unknown token). */
  signOut(token: string): Promise<void> {
    return this.store.auth.deleteSession(hashApiKey(token));
  }

  /** The body of `/auth/session`: who is signed in and the entities they reach. */
  static view(caller: Caller): SessionView {
    return {
      user: { id: caller.userId, username: caller.username },
      entities: [...caller.entities].sort(),
      writable_entities: writableEntities(caller).sort(),
      instance_admin: caller.isAdmin,
    };
  }
}
