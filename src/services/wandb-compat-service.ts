import type { Config } from '../config/config.js';
import { isValidName, NAME_RULE, quoteForMessage } from '../domain/project-name.js';
import { formatMicros } from '../domain/time.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { canWrite, viewerMessage, type ProjectAccess } from './project-access.js';

/** An entity as the GraphQL layer shows it. */
export interface EntityView {
  name: string;
  readOnly: boolean;
  isTeam: boolean;
}

/** A project as the GraphQL layer shows it. */
export interface ProjectView {
  /** `entity/project`, the trace server's project_id. */
  projectId: string;
  name: string;
  entityName: string;
  createdAt: string;
}

/** Why a W&B-compat operation was refused; the GraphQL layer turns it into an error with this code. */
export class WandbCompatError extends Error {
  constructor(
    readonly code: 'PERMISSION_ERROR' | 'BAD_USER_INPUT',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The W&B account concepts the Weave clients ask about (viewer, entities, projects, server info),
 * mapped onto Heddle's users, memberships and projects. Tenancy as everywhere: a caller sees and
 * creates projects only under entities it is a member of; admins reach every entity.
 */
export class WandbCompatService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly config: Config,
  ) {}

  viewer(caller: Caller): { id: string; username: string; admin: boolean; defaultEntity: string } {
    return { id: caller.userId, username: caller.username, admin: caller.isAdmin, defaultEntity: caller.defaultEntity };
  }

  /** The entity when the caller may see it (member, or admin and the entity exists); otherwise null. */
  async entity(caller: Caller, name: string): Promise<EntityView | null> {
    if (caller.entities.has(name)) return this.#entityView(caller, name);
    if (caller.isAdmin && (await this.store.auth.entityExists(name))) return this.#entityView(caller, name);
    return null;
  }

  /**
   * A recorded project, or null. Projects of other entities are reported as missing rather than
   * forbidden, so a key cannot probe which projects exist elsewhere.
   */
  async project(caller: Caller, entityName: string, name: string): Promise<ProjectView | null> {
    if (!this.#canReach(caller, entityName) || !isValidName(entityName) || !isValidName(name)) return null;
    const record = await this.store.auth.findProject(`${entityName}/${name}`);
    return record === null
      ? null
      : { projectId: record.project_id, name, entityName, createdAt: formatMicros(record.created_at) };
  }

  /**
   * Creates `entity/name` when missing (W&B's upsertModel). The client calls it during
   * `weave.init` after `project` answered null; a refusal must carry PERMISSION_ERROR, which the
   * Python client turns into a readable "no permission" message.
   */
  async upsertProject(
    caller: Caller,
    input: { name?: string | null; entityName?: string | null },
  ): Promise<{ project: ProjectView; inserted: boolean }> {
    const entityName = input.entityName ?? caller.defaultEntity;
    const name = input.name;
    if (name === undefined || name === null)
      throw new WandbCompatError('BAD_USER_INPUT', 'upsertModel needs input.name');
    if (!isValidName(entityName))
      throw new WandbCompatError('BAD_USER_INPUT', `Invalid entity name ${quoteForMessage(entityName)}: ${NAME_RULE}`);
    if (!isValidName(name))
      throw new WandbCompatError('BAD_USER_INPUT', `Invalid project name ${quoteForMessage(name)}: ${NAME_RULE}`);
    if (!this.#canReach(caller, entityName)) {
      throw new WandbCompatError(
        'PERMISSION_ERROR',
        `You are not a member of entity "${entityName}" and cannot create projects in it`,
      );
    }
    const projectId = `${entityName}/${name}`;
    const existing = await this.store.auth.findProject(projectId);
    // a viewer may init against an existing project (and read it), never create one
    if (existing === null && !canWrite(caller, entityName))
      throw new WandbCompatError('PERMISSION_ERROR', viewerMessage(entityName, projectId));
    if (existing === null) await this.access.assertCanWrite(caller, projectId);
    const record = existing ?? (await this.store.auth.findProject(projectId));
    const createdAt = formatMicros(record?.created_at ?? Date.now() * 1000);
    return { project: { projectId, name, entityName, createdAt }, inserted: existing === null };
  }

  /**
   * `frontendHost`: HEDDLE_PUBLIC_URL when set, else the configured listen address; when that
   * address is not reachable as such (port 0, wildcard host) the address the request came to.
   */
  serverInfo(requestOrigin: string): { frontendHost: string } {
    if (this.config.publicUrl) return { frontendHost: this.config.publicUrl.replace(/\/+$/, '') };
    const { host, port } = this.config;
    if (port === 0 || host === '0.0.0.0' || host === '::' || host === '') return { frontendHost: requestOrigin };
    const hostPart = host.includes(':') ? `[${host}]` : host;
    return { frontendHost: `http://${hostPart}:${port}` };
  }

  #canReach(caller: Caller, entity: string): boolean {
    return caller.isAdmin || caller.entities.has(entity);
  }

  /** Members and admins may write to every entity they can see (Heddle has no read-only role). */
  #entityView(caller: Caller, name: string): EntityView {
    return { name, readOnly: !this.#canReach(caller, name), isTeam: name !== caller.defaultEntity };
  }
}
