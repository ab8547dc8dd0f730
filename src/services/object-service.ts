import { processObjectValue } from '../domain/builtin-classes.js';
import { digestValue, isContentHash, parseVersionLike } from '../domain/digest.js';
import { isJsonObject, type JsonValue } from '../domain/json-value.js';
import { invalidObjectIdChars, MAX_OBJECT_ID_LENGTH, objectKind } from '../domain/object-classes.js';
import { objectVersionJson } from '../domain/object-view.js';
import { nowMicros, formatMicros } from '../domain/time.js';
import { findBadRef } from '../domain/value-refs.js';
import {
  DigestMismatchError,
  ObjectDeletedError,
  ObjectIdFieldError,
  ObjectInvalidRequestError,
  ObjectNameTypeCollisionError,
  ObjectNotFoundError,
} from '../errors/object-errors.js';
import type { ObjCreateReq, ObjDeleteReq, ObjQueryReq, ObjReadReq } from '../schemas/objects.js';
import type { ObjectsSortKey, ObjectVersionRow, TraceStore, VersionSelector } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/** Most digests one `/obj/delete` may name (docs/spec/objects.md §3.3). */
export const MAX_DELETE_DIGESTS = 100;

/** §2.6: how the `digest` parameter of `/obj/read` names a version. */
export function readSelector(digest: string): VersionSelector {
  if (digest === 'latest') return { by: 'latest' };
  const index = parseVersionLike(digest);
  if (index !== null) return { by: 'index', index };
  if (isContentHash(digest)) return { by: 'digest', digest };
  return { by: 'alias', alias: digest };
}

/** §3.3: delete resolves only rules 1–3 of §2.6; anything else must be an exact digest. */
function deleteSelector(digest: string): VersionSelector {
  const selector = readSelector(digest);
  return selector.by === 'alias' ? { by: 'digest', digest } : selector;
}

/** §3.1: 422 for an empty id or illegal characters, 400 beyond 128 characters. */
export function assertValidObjectId(objectId: string): void {
  if (objectId === '') throw new ObjectIdFieldError('object_id cannot be empty');
  const bad = invalidObjectIdChars(objectId);
  if (bad.length > 0) {
    throw new ObjectIdFieldError(
      `Invalid object_id "${objectId}": only letters, digits, "_", "." and "-" are allowed; found ${bad.map((c) => JSON.stringify(c)).join(', ')}`,
    );
  }
  if (objectId.length > MAX_OBJECT_ID_LENGTH) {
    throw new ObjectInvalidRequestError(
      `object_id is too long: ${objectId.length} characters, at most ${MAX_OBJECT_ID_LENGTH} allowed`,
      'CHValidationError',
    );
  }
}

/** Python's repr of a list of strings, as the reference's delete error prints it. */
function pythonList(values: string[] | null | undefined): string {
  return values == null ? 'None' : `[${values.map((v) => `'${v}'`).join(', ')}]`;
}

/** Objects with versions: create, read, delete, query (docs/spec/objects.md §2–3). */
/** Told of every published version before `/obj/create` answers (online monitors, docs/monitors.md). */
export type ObjectPublishListener = (
  caller: Caller,
  projectId: string,
  objectId: string,
  baseObjectClass: string | null,
  val: unknown,
) => Promise<void>;

export class ObjectService {
  readonly #listeners: ObjectPublishListener[] = [];

  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  onPublished(listener: ObjectPublishListener): void {
    this.#listeners.push(listener);
  }

  async objCreate(caller: Caller, req: ObjCreateReq): Promise<{ digest: string; object_id: string }> {
    const { digest, object_id } = await this.createVersion(caller, req);
    return { digest, object_id };
  }

  /** `/obj/create`, answering with the version index the store gave (or had given) the version too. */
  async createVersion(
    caller: Caller,
    req: ObjCreateReq,
  ): Promise<{ digest: string; object_id: string; version_index: number }> {
    const obj = req.obj;
    assertValidObjectId(obj.object_id);
    this.access.assertCanRead(caller, obj.project_id);
    const val = (obj.val === undefined ? null : obj.val) as JsonValue;
    const bad = findBadRef(val);
    if (bad?.kind === 'internal')
      throw new ObjectInvalidRequestError('Encountered unexpected internal ref format.', 'InvalidInternalRef');
    if (bad) throw new ObjectInvalidRequestError(`Invalid URI: ${bad.value}`, 'InvalidExternalRef');
    const processed = processObjectValue(val, obj.builtin_object_class ?? obj.set_base_object_class ?? null);
    const { digest, canonical } = digestValue(processed.val);
    if (obj.expected_digest != null && obj.expected_digest !== digest)
      throw new DigestMismatchError('object', obj.expected_digest, digest);
    await this.access.assertCanWrite(caller, obj.project_id);
    const kind = objectKind(processed.val);
    const outcome = await this.store.objects.create({
      project_id: obj.project_id,
      object_id: obj.object_id,
      digest,
      kind,
      base_object_class: processed.base_object_class,
      leaf_object_class: processed.leaf_object_class,
      val: canonical,
      size_bytes: Buffer.byteLength(canonical, 'utf8'),
      wb_user_id: caller.userId,
      created_at: nowMicros(),
    });
    if (outcome.status === 'collision') {
      const name = isJsonObject(processed.val) && typeof processed.val.name === 'string' ? processed.val.name : null;
      throw new ObjectNameTypeCollisionError({
        object_id: obj.object_id,
        kind,
        new_base_object_class: processed.base_object_class,
        existing_base_object_classes: outcome.existing_base_object_classes,
        object_name: name,
      });
    }
    for (const listener of this.#listeners)
      await listener(caller, obj.project_id, obj.object_id, processed.base_object_class, processed.val);
    return { digest, object_id: obj.object_id, version_index: outcome.version_index };
  }

  /** `{"obj": ObjSchema}` as JSON text; 404 when missing, 404 ObjectDeletedError when deleted (§3.2). */
  async objRead(caller: Caller, req: ObjReadReq): Promise<string> {
    this.access.assertCanRead(caller, req.project_id);
    const row = await this.store.objects.findVersion(req.project_id, req.object_id, readSelector(req.digest), {
      metadata_only: req.metadata_only,
    });
    if (row === null) throw new ObjectNotFoundError(`Obj ${req.object_id}:${req.digest} not found`);
    if (row.deleted_at !== null) {
      const deletedAt = formatMicros(row.deleted_at);
      throw new ObjectDeletedError(`${req.object_id}:v${row.version_index} was deleted at ${deletedAt}`, deletedAt);
    }
    const [json] = await this.#render([row], { include_tags_and_aliases: req.include_tags_and_aliases === true });
    return `{"obj":${json}}`;
  }

  async objDelete(
    caller: Caller,
    req: ObjDeleteReq,
  ): Promise<{
    num_deleted: number;
    deleted_versions: Array<{ digest: string; base_object_class: string | null; leaf_object_class: string | null }>;
  }> {
    if (req.digests != null && req.digests.length > MAX_DELETE_DIGESTS) {
      throw new ObjectInvalidRequestError(
        `Object delete request contains ${req.digests.length} digests; at most ${MAX_DELETE_DIGESTS} are allowed`,
        'ValueError',
      );
    }
    await this.access.assertCanWrite(caller, req.project_id);
    const selectors = req.digests == null || req.digests.length === 0 ? null : req.digests.map(deleteSelector);
    const deleted = await this.store.objects.delete(req.project_id, req.object_id, selectors, nowMicros());
    if (deleted === null)
      throw new ObjectNotFoundError(`Object ${req.object_id} (${pythonList(req.digests)}) not found when deleting.`);
    return {
      num_deleted: deleted.length,
      deleted_versions: deleted.map((row) => ({
        digest: row.digest,
        base_object_class: row.base_object_class,
        leaf_object_class: row.leaf_object_class,
      })),
    };
  }

  /** `{"objs": [ObjSchema, …]}` as JSON text (§3.4). */
  async objsQuery(caller: Caller, req: ObjQueryReq): Promise<string> {
    this.access.assertCanRead(caller, req.project_id);
    if (req.limit != null && req.limit < 0)
      throw new ObjectInvalidRequestError('limit must be non-negative', 'ValueError');
    if (req.offset != null && req.offset < 0)
      throw new ObjectInvalidRequestError('offset must be non-negative', 'ValueError');
    if (req.limit === 0) return '{"objs":[]}';
    // only object_id and created_at sort (§3.4); other fields are ignored
    const sortBy = (req.sort_by ?? []).filter(
      (key): key is ObjectsSortKey => key.field === 'object_id' || key.field === 'created_at',
    );
    const rows = await this.store.objects.query({
      project_id: req.project_id,
      filter: req.filter ?? null,
      sort_by: sortBy,
      limit: req.limit ?? null,
      offset: req.offset ?? null,
      metadata_only: req.metadata_only === true,
    });
    const objs = await this.#render(rows, {
      include_storage_size: req.include_storage_size === true,
      include_tags_and_aliases: req.include_tags_and_aliases === true,
    });
    return `{"objs":[${objs.join(',')}]}`;
  }

  async #render(
    rows: ObjectVersionRow[],
    opts: { include_storage_size?: boolean; include_tags_and_aliases?: boolean },
  ): Promise<string[]> {
    const labels =
      opts.include_tags_and_aliases && rows.length > 0
        ? await this.store.objects.labels(rows[0]!.project_id, rows)
        : null;
    return rows.map((row) =>
      objectVersionJson(row, {
        include_storage_size: opts.include_storage_size,
        labels:
          labels === null ? undefined : (labels.get(`${row.object_id}:${row.digest}`) ?? { tags: [], aliases: [] }),
      }),
    );
  }
}
