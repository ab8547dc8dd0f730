import type Database from 'better-sqlite3';
import { uuidv7 } from '../../domain/ids.js';
import type { UserRecord } from '../types.js';
import type { EntityRole } from '../../domain/roles.js';

/** The auth store's writes, run on the writer connection in the writer thread. */

export function ensureUser(db: Database.Database, a: { username: string; defaultEntity: string }): UserRecord {
  const existing = db.prepare('SELECT * FROM users WHERE username = ?').get(a.username) as UserRecord | undefined;
  if (existing) return existing;
  const user: UserRecord = {
    id: uuidv7(),
    username: a.username,
    default_entity: a.defaultEntity,
    created_at: Date.now() * 1000,
  };
  db.prepare('INSERT INTO users (id, username, default_entity, created_at) VALUES (?, ?, ?, ?)').run(
    user.id,
    user.username,
    user.default_entity,
    user.created_at,
  );
  return user;
}

export function addMembership(db: Database.Database, a: { userId: string; entity: string }): void {
  db.prepare('INSERT OR IGNORE INTO entities (name, created_at) VALUES (?, ?)').run(a.entity, Date.now() * 1000);
  db.prepare('INSERT OR IGNORE INTO memberships (user_id, entity) VALUES (?, ?)').run(a.userId, a.entity);
}

export interface ApiKeyInsert {
  id: string;
  user_id: string;
  key_hash: string;
  prefix: string;
  is_admin: boolean;
}

export function createApiKey(db: Database.Database, key: ApiKeyInsert): void {
  db.prepare(
    'INSERT OR IGNORE INTO api_keys (id, user_id, key_hash, prefix, is_admin, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(key.id, key.user_id, key.key_hash, key.prefix, key.is_admin ? 1 : 0, Date.now() * 1000);
}

/** True when the key exists (revoked now or before). */
export function revokeApiKey(db: Database.Database, id: string): boolean {
  return (
    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(Date.now() * 1000, id)
      .changes > 0 || db.prepare('SELECT 1 FROM api_keys WHERE id = ?').get(id) !== undefined
  );
}

/** Sets the role of an existing membership (entity admins, routes/keys.ts). */
export function setMembershipRole(
  db: Database.Database,
  a: { userId: string; entity: string; role: EntityRole },
): void {
  db.prepare('UPDATE memberships SET role = ? WHERE user_id = ? AND entity = ?').run(a.role, a.userId, a.entity);
}

/** Stores a browser session, purging expired ones on the way (web UI sign-in). */
export function createSession(
  db: Database.Database,
  a: { token_hash: string; user_id: string; api_key_id: string; created_at: number; expires_at: number },
): void {
  db.prepare('DELETE FROM ui_sessions WHERE expires_at <= ?').run(a.created_at);
  db.prepare(
    'INSERT INTO ui_sessions (token_hash, user_id, api_key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  ).run(a.token_hash, a.user_id, a.api_key_id, a.created_at, a.expires_at);
}

export function deleteSession(db: Database.Database, tokenHash: string): void {
  db.prepare('DELETE FROM ui_sessions WHERE token_hash = ?').run(tokenHash);
}

export function ensureProject(
  db: Database.Database,
  a: { projectId: string; entity: string; createdBy: string },
): void {
  db.prepare('INSERT OR IGNORE INTO projects (project_id, entity, created_by, created_at) VALUES (?, ?, ?, ?)').run(
    a.projectId,
    a.entity,
    a.createdBy,
    Date.now() * 1000,
  );
}
