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

/**
 * Tenancy: a caller reaches only projects of entities its user belongs to (admins: all).
 * Projects are recorded on first write.
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

  /** As assertCanRead, and records the project on its first write. */
  async assertCanWrite(caller: Caller, projectId: string): Promise<void> {
    this.assertCanRead(caller, projectId);
    if (this.#known.has(projectId)) return;
    await this.store.auth.ensureProject(projectId, parseProjectId(projectId).entity, caller.userId);
    this.#known.add(projectId);
  }
}
