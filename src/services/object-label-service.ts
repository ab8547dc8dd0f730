import { aliasProblem, dedupeNames, tagProblem } from '../domain/object-labels.js';
import { nowMicros } from '../domain/time.js';
import { ObjectInvalidRequestError, ObjectNotFoundError } from '../errors/object-errors.js';
import type { ObjRemoveAliasesBody, ObjSetAliasesBody, ObjTagsBody } from '../schemas/objects.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/** Every name valid, else 400 naming the first bad one; nothing changes then (§2.7). */
function validated(names: string[], what: 'tag' | 'alias'): string[] {
  const distinct = dedupeNames(names);
  for (const name of distinct) {
    const problem = what === 'tag' ? tagProblem(name) : aliasProblem(name);
    if (problem !== null)
      throw new ObjectInvalidRequestError(`Invalid ${what} ${JSON.stringify(name)}: ${what} names ${problem}`);
  }
  return distinct;
}

/** Tags on versions and aliases of objects (docs/spec/objects.md §2.7, §3.5). */
export class ObjectLabelService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  async addTags(caller: Caller, objectId: string, digest: string, body: ObjTagsBody): Promise<Record<string, never>> {
    const tags = validated(body.tags, 'tag');
    await this.access.assertCanWrite(caller, body.project_id);
    // only a live version's content digest qualifies, not an alias, `latest` or `vN` (§3.5)
    if (!(await this.store.objects.addTags(body.project_id, objectId, digest, tags, nowMicros()))) {
      throw new ObjectNotFoundError(`Object version ${objectId}:${digest} not found`);
    }
    return {};
  }

  async removeTags(
    caller: Caller,
    objectId: string,
    digest: string,
    body: ObjTagsBody,
  ): Promise<Record<string, never>> {
    await this.access.assertCanWrite(caller, body.project_id);
    const tags = dedupeNames(body.tags);
    if (tags.length > 0) await this.store.objects.removeTags(body.project_id, objectId, digest, tags);
    return {};
  }

  async setAliases(caller: Caller, objectId: string, body: ObjSetAliasesBody): Promise<Record<string, never>> {
    const aliases = validated(body.aliases, 'alias');
    await this.access.assertCanWrite(caller, body.project_id);
    if (!(await this.store.objects.setAliases(body.project_id, objectId, body.digest, aliases, nowMicros()))) {
      throw new ObjectNotFoundError(`Object version ${objectId}:${body.digest} not found`);
    }
    return {};
  }

  async removeAliases(caller: Caller, objectId: string, body: ObjRemoveAliasesBody): Promise<Record<string, never>> {
    const aliases = validated(body.aliases, 'alias');
    await this.access.assertCanWrite(caller, body.project_id);
    if (aliases.length > 0) await this.store.objects.removeAliases(body.project_id, objectId, aliases);
    return {};
  }

  async listTags(caller: Caller, projectId: string): Promise<{ tags: string[] }> {
    this.access.assertCanRead(caller, projectId);
    return { tags: await this.store.objects.listTags(projectId) };
  }

  async listAliases(caller: Caller, projectId: string): Promise<{ aliases: string[] }> {
    this.access.assertCanRead(caller, projectId);
    return { aliases: await this.store.objects.listAliases(projectId) };
  }
}
