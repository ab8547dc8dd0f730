import { ForbiddenError, NotFoundError } from '../errors/app-error.js';
import type { ProjectDeleteRes, ProjectUsageRes } from '../schemas/projects.js';
import type { ProjectRowCounts, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { AuditLog } from './audit-service.js';
import { parseProjectId, type ProjectAccess } from './project-access.js';

const sum = (counts: ProjectRowCounts): number => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * A project's stored rows and its deletion (docs/export.md "Project deletion"). Any reader of the
 * project may count its rows; only an instance admin or an admin of its entity (memberships.role,
 * as for keys in key-admin-service.ts) may delete it.
 */
export class ProjectAdminService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly audit: AuditLog,
  ) {}

  async usage(caller: Caller, entity: string, project: string): Promise<ProjectUsageRes> {
    const projectId = `${entity}/${project}`;
    this.access.assertCanRead(caller, projectId);
    const rows = await this.store.projectData.rowCounts(projectId);
    return { project_id: projectId, rows, total_rows: sum(rows) };
  }

  /** Deletes every row of the project; 404 when nothing of it is stored. Repeating an interrupted deletion finishes it. */
  async deleteProject(caller: Caller, entity: string, project: string): Promise<ProjectDeleteRes> {
    const projectId = `${entity}/${project}`;
    parseProjectId(projectId);
    this.access.assertCanRead(caller, projectId);
    // read from the store, not the caller's role cache: a demoted admin must not delete a project
    if (!caller.isAdmin) {
      const memberships = await this.store.auth.listMemberships(caller.userId);
      if (!memberships.some((m) => m.entity === entity && m.role === 'admin'))
        throw new ForbiddenError(`Only an admin of entity ${entity} or an instance admin can delete ${projectId}`);
    }
    if ((await this.store.auth.findProject(projectId)) === null) {
      if (sum(await this.store.projectData.rowCounts(projectId)) === 0)
        throw new NotFoundError(`Project ${projectId} not found`);
    }
    const started = performance.now();
    const deleted = await this.store.projectData.deleteProject(projectId);
    this.access.forget(projectId);
    const remaining = sum(await this.store.projectData.rowCounts(projectId));
    await this.audit.record(caller, entity, 'project.deleted', projectId, {
      deleted,
      deleted_rows: sum(deleted),
      remaining_rows: remaining,
    });
    return {
      project_id: projectId,
      deleted,
      deleted_rows: sum(deleted),
      remaining_rows: remaining,
      elapsed_ms: Math.round(performance.now() - started),
    };
  }
}
