import { KEY_SELECT } from './auth-rows.js';

/** SQL of the web UI's store reads, the same for both adapters (placeholders filled per dialect). */

/** A session's key and user (auth-rows.ts KEY_SELECT): unexpired, and its key not revoked. */
export function sessionSelect(token: string, now: string): string {
  return `${KEY_SELECT} JOIN ui_sessions s ON s.api_key_id = k.id AND s.user_id = k.user_id
    WHERE s.token_hash = ${token} AND s.expires_at > ${now} AND k.revoked_at IS NULL`;
}

/**
 * Projects with their latest call start: one probe of `calls_by_start` (project_id, started_at, id)
 * per project, so the cost grows with the number of projects, not of calls.
 */
export function projectListSelect(entityCondition: string | null): string {
  return `SELECT p.project_id, p.entity, p.created_at,
      (SELECT c.started_at FROM calls c WHERE c.project_id = p.project_id AND c.started_at IS NOT NULL
       ORDER BY c.started_at DESC LIMIT 1) AS last_call_at
    FROM projects p${entityCondition ? ` WHERE ${entityCondition}` : ''}
    ORDER BY last_call_at DESC NULLS LAST, p.project_id ASC`;
}
