import type { ApiKeyRecord } from '../types.js';

/** An API key joined with its user, as both adapters select it. */
export interface KeyRow {
  id: string;
  user_id: string;
  username: string;
  default_entity: string;
  user_created_at: number;
  /** SQLite answers 0/1, PostgreSQL a boolean. */
  is_admin: boolean | number;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

export const KEY_SELECT = `
  SELECT k.id, k.user_id, u.username, u.default_entity, u.created_at AS user_created_at,
         k.is_admin, k.prefix, k.created_at, k.revoked_at
  FROM api_keys k JOIN users u ON u.id = k.user_id`;

export function toKeyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    username: row.username,
    is_admin: row.is_admin === true || row.is_admin === 1,
    prefix: row.prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

/** Keys whose user is a member of the entity (`param`: the dialect's placeholder), newest first. */
export function keysOfEntityWhere(param: string): string {
  return `WHERE k.user_id IN (SELECT user_id FROM memberships WHERE entity = ${param}) ORDER BY k.created_at DESC, k.id DESC`;
}
