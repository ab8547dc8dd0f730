import { isValidName, NAME_RULE, quoteForMessage } from '../domain/project-name.js';
import { ForbiddenError, InvalidRequestError } from '../errors/app-error.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';

/** Splits `entity/project`; 400 unless there is exactly one `/` between two valid names (domain/project-name.ts). */
export function parseProjectId(projectId: string): { entity: string; project: string } {
  const [entity, project, ...more] = projectId.split('/');
  if (
    entity === undefined ||
    project === undefined ||
    more.length > 0 ||
    !isValidName(entity) ||
    !isValidName(project)
  ) {
    throw new InvalidRequestError(
      `Invalid project_id ${quoteForMessage(projectId)}: expected "<entity>/<project>", each ${NAME_RULE}`,
    );
  }
  return { entity, project };
}

/** Whether the caller may write in the entity: an instance admin, or its admin or member (not a viewer). */
export function canWrite(caller: Caller, entity: string): boolean {
  const role = caller.roles.get(entity);
  return caller.isAdmin || role === 'admin' || role === 'member';
}

/** The entities where the caller may write (not those where it is a viewer). */
export function writableEntities(caller: Caller): string[] {
  return [...caller.roles].filter(([, role]) => role !== 'viewer').map(([entity]) => entity);
}

/** Whether the caller administers the entity: an instance admin or an entity admin. */
export function administers(caller: Caller, entity: string): boolean {
  return caller.isAdmin || caller.roles.get(entity) === 'admin';
}

/**
 * Tenancy and roles (docs/roles-and-audit.md): a caller reads only projects of entities its user
 * belongs to (instance admins: all), writes only where it is a member or an admin, never as a
 * viewer. Projects are recorded on first write.
 */
export class ProjectAccess {
  #known = new Set<string>();

  constructor(private readonly store: TraceStore) {}

  /** Throws 400 for a malformed id and 403 for another entity's project. */
  assertCanRead(caller: Caller, projectId: string): void {
    const { entity } = parseProjectId(projectId);
    if (!caller.isAdmin && !caller.entities.has(entity)) {
      throw new ForbiddenError(`You do not have access to project ${projectId}`);
    }
  }

  /** After a project deletion: its next write on this node records the project again. */
  forget(projectId: string): void {
    this.#known.delete(projectId);
  }

  /** As assertCanRead, then 403 for a viewer of the entity; records the project on its first write. */
  async assertCanWrite(caller: Caller, projectId: string): Promise<void> {
    this.assertCanRead(caller, projectId);
    const { entity } = parseProjectId(projectId);
    if (!canWrite(caller, entity)) throw new ForbiddenError(viewerMessage(entity, projectId));
    if (this.#known.has(projectId)) return;
    await this.store.auth.ensureProject(projectId, entity, caller.userId);
    this.#known.add(projectId);
  }

  /**
   * 403 unless the caller administers the entity (roles, the audit log). Reads the role from the
   * store, not the caller's few-seconds cache, so a demoted admin loses these rights at once.
   */
  async assertAdministers(caller: Caller, entity: string, what: string): Promise<void> {
    if (caller.isAdmin) return;
    const memberships = await this.store.auth.listMemberships(caller.userId);
    if (memberships.some((m) => m.entity === entity && m.role === 'admin')) return;
    throw new ForbiddenError(`Only an admin of entity ${entity} or an instance admin can ${what}`);
  }
}

/** The reason a viewer's write is refused with. */
export function viewerMessage(entity: string, projectId?: string): string {
  return `Your role in entity ${entity} is viewer (read only): you cannot write${projectId ? ` to ${projectId}` : ''}`;
}
