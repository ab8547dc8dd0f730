import { uuidv7 } from '../domain/ids.js';
import { formatMicros, nowMicros } from '../domain/time.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import type {
  AuditQuery,
  AuditRes,
  MembershipQueryReq,
  MembershipQueryRes,
  MembershipUpdateReq,
  MembershipUpdateRes,
} from '../schemas/audit.js';
import type { EntityRole } from '../domain/roles.js';
import type { AuditAction, TraceStore } from '../store/types.js';
import type { AuthService, Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/** The most entries one page of the log holds. */
const MAX_PAGE = 1000;

/** Who acted: a caller of the API, or the operator's CLI on the store itself (`null`). */
export type Actor = Pick<Caller, 'userId' | 'username' | 'keyId'> | null;

/**
 * The audit log (docs/roles-and-audit.md): the services that change keys, roles, prices or
 * retention, or delete data, record here once the change is made; entity admins read it.
 */
export class AuditLog {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  /** Records one action on `entity`; `details` must be JSON (ids, counts, the new role …). */
  async record(
    actor: Actor,
    entity: string,
    action: AuditAction,
    target: string | null,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.store.audit.append({
      entity,
      id: uuidv7(),
      at: nowMicros(),
      user_id: actor?.userId ?? null,
      username: actor?.username ?? null,
      key_id: actor?.keyId ?? null,
      action,
      target,
      details: JSON.stringify(details),
    });
  }

  /** Newest first, `limit` per page; entity admins and instance admins only. */
  async list(caller: Caller | null, q: AuditQuery): Promise<AuditRes> {
    if (caller !== null) await this.access.assertAdministers(caller, q.entity, `read the audit log of ${q.entity}`);
    const limit = q.limit ?? 100;
    if (!(limit >= 1 && limit <= MAX_PAGE))
      throw new InvalidRequestError(`limit must be 1 to ${MAX_PAGE}, got ${limit}`);
    const rows = await this.store.audit.list(q.entity, { limit, before: q.before, action: q.action });
    const entries = rows.map((r) => ({
      id: r.id,
      at: formatMicros(r.at),
      entity: r.entity,
      user_id: r.user_id,
      username: r.username,
      key_id: r.key_id,
      action: r.action,
      target: r.target,
      details: JSON.parse(r.details) as Record<string, unknown>,
    }));
    return { entries, next_before: rows.length === limit ? rows[rows.length - 1]!.id : null };
  }
}

/**
 * Roles of an entity's members (docs/roles-and-audit.md), changed by its admins. A change takes
 * effect at once on this node and within a few seconds on others (AuthService's role cache).
 */
export class MembershipService {
  constructor(
    private readonly store: TraceStore,
    private readonly auth: AuthService,
    private readonly access: ProjectAccess,
    private readonly audit: AuditLog,
  ) {}

  async query(caller: Caller, req: MembershipQueryReq): Promise<MembershipQueryRes> {
    await this.access.assertAdministers(caller, req.entity, `list the members of ${req.entity}`);
    const members = await this.store.auth.listMembers(req.entity);
    return { members: members.map((m) => ({ username: m.username, role: m.role })) };
  }

  /** Sets a member's role; 404 for a user who is not a member, 409 when it would leave the entity without an admin. */
  async update(caller: Caller, req: MembershipUpdateReq): Promise<MembershipUpdateRes> {
    await this.access.assertAdministers(caller, req.entity, `change roles in ${req.entity}`);
    return this.setRole(caller, req);
  }

  /**
   * The role a key's user gets in `entity` when none is asked for: admin for the first member of an
   * entity that has none yet (so a new entity's first key can manage it), else none (a new member
   * starts as `member`; an existing one keeps its role).
   */
  async roleForNewKey(entity: string): Promise<EntityRole | undefined> {
    return (await this.store.auth.listMembers(entity)).length === 0 ? 'admin' : undefined;
  }

  /** As update, without the caller check (the operator's CLI). */
  async setRole(actor: Actor, req: MembershipUpdateReq): Promise<MembershipUpdateRes> {
    const members = await this.store.auth.listMembers(req.entity);
    const member = members.find((m) => m.username === req.username);
    if (!member) throw new NotFoundError(`User ${req.username} is not a member of entity ${req.entity}`);
    const admins = members.filter((m) => m.role === 'admin').length;
    if (member.role === 'admin' && req.role !== 'admin' && admins === 1)
      throw new ConflictError(
        `${req.username} is the last admin of entity ${req.entity}; make another member admin first`,
      );
    if (member.role !== req.role) {
      await this.store.auth.setMembershipRole(member.user_id, req.entity, req.role);
      this.auth.forgetUser(member.user_id);
      await this.audit.record(actor, req.entity, 'role.changed', req.username, { from: member.role, to: req.role });
    }
    return { entity: req.entity, username: req.username, role: req.role, previous_role: member.role };
  }
}
