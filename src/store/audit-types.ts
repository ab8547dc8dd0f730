/**
 * The audit log (docs/roles-and-audit.md): who changed keys, roles, prices, retention, or deleted
 * data, per entity. Instants are integer microseconds; `details` is JSON text.
 */

/** What an audit entry records. */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'role.changed',
  'prices.created',
  'prices.purged',
  'calls.deleted',
  'feedback.purged',
  'project.deleted',
  'retention.changed',
  'retention.applied',
  'project.imported',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditRecord {
  entity: string;
  /** A UUIDv7: ordering by id within an entity is ordering by time. */
  id: string;
  at: number;
  /** Who: null for the operator's CLI on the store itself. */
  user_id: string | null;
  username: string | null;
  /** The API key the request came with (null for the CLI). */
  key_id: string | null;
  action: AuditAction;
  /** What it acted on: a project id, a key id, a user name. */
  target: string | null;
  /** JSON text of an object with the action's particulars (counts, ids, the new role …). */
  details: string;
}

export interface AuditStore {
  /** Appends one entry. */
  append(entry: AuditRecord): Promise<void>;
  /**
   * Entries of one entity, newest first (by id), at most `limit`; `before` (an id) continues a
   * listing after its last entry; `action` keeps only that action.
   */
  list(entity: string, opts: { limit: number; before?: string; action?: AuditAction }): Promise<AuditRecord[]>;
}
