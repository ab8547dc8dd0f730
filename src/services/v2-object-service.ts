import { isJsonObject, type JsonObject } from '../domain/json-value.js';
import { formatRef } from '../domain/ref-uri.js';
import { formatMicros } from '../domain/time.js';
import { RequestValidationError } from '../errors/app-error.js';
import { ObjectDeletedError, ObjectInvalidRequestError, ObjectNotFoundError } from '../errors/object-errors.js';
import type { ObjCreateReq } from '../schemas/objects.js';
import type * as S from '../schemas/v2-objects.js';
import type { ObjectVersionRow, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { FileService } from './file-service.js';
import { assertValidObjectId, readSelector, type ObjectService } from './object-service.js';
import type { ProjectAccess } from './project-access.js';
import type { TableService } from './table-service.js';
import { familyView, type ViewMode } from './v2-object-views.js';
import * as V from './v2-object-values.js';

/** What every v2 create answers: the version it made or found again. */
export interface PublishedVersion {
  digest: string;
  object_id: string;
  version_index: number;
}

/**
 * The v2 object APIs (docs/spec/evaluations.md §2): typed façades over objects, files and tables. Every
 * write goes through the generic services, so what they create is what `/obj/create`,
 * `/file/create` and `/table/create` would have stored.
 */
export class V2ObjectService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly objects: ObjectService,
    private readonly files: FileService,
    private readonly tables: TableService,
  ) {}

  async opCreate(caller: Caller, projectId: string, body: S.OpCreateBody): Promise<PublishedVersion> {
    const objectId = await this.#prepare(caller, projectId, V.makeObjectId(body.name, V.DEFAULT_OBJECT_ID.ops));
    return this.#publishOp(caller, projectId, objectId, body.source_code || V.OP_SOURCE_PLACEHOLDER);
  }

  async datasetCreate(caller: Caller, projectId: string, body: S.DatasetCreateBody): Promise<PublishedVersion> {
    const objectId = await this.#prepare(caller, projectId, V.makeObjectId(body.name, V.DEFAULT_OBJECT_ID.datasets));
    assertRowObjects(body.rows);
    const table = await this.tables.create(caller, {
      table: { project_id: projectId, rows: body.rows, expected_digest: null },
    });
    return this.#publish(caller, projectId, objectId, {
      ...V.classFields('Dataset'),
      name: body.name ?? V.DEFAULT_OBJECT_ID.datasets,
      description: body.description ?? null,
      rows: V.tableRef(projectId, table.digest),
    });
  }

  async scorerCreate(
    caller: Caller,
    projectId: string,
    body: S.ScorerCreateBody,
  ): Promise<PublishedVersion & { scorer: string }> {
    const objectId = await this.#prepare(caller, projectId, V.makeObjectId(body.name, V.DEFAULT_OBJECT_ID.scorers), [
      '_score',
      '_summarize',
    ]);
    const score = await this.#publishOp(caller, projectId, `${objectId}_score`, body.op_source_code);
    const summarize = await this.#publishOp(caller, projectId, `${objectId}_summarize`, V.SCORER_SUMMARIZE_SOURCE);
    const version = await this.#publish(caller, projectId, objectId, {
      ...V.classFields('Scorer'),
      name: body.name,
      description: body.description ?? null,
      score: V.opRef(projectId, score.object_id, score.digest),
      summarize: V.opRef(projectId, summarize.object_id, summarize.digest),
      column_map: null,
    });
    return { ...version, scorer: V.objectRef(projectId, objectId, version.digest) };
  }

  async modelCreate(
    caller: Caller,
    projectId: string,
    body: S.ModelCreateBody,
  ): Promise<PublishedVersion & { model_ref: string }> {
    const objectId = await this.#prepare(caller, projectId, V.makeObjectId(body.name, V.DEFAULT_OBJECT_ID.models));
    const file = await this.files.createFromBytes(caller, projectId, 'obj.py', Buffer.from(body.source_code, 'utf8'));
    const version = await this.#publish(caller, projectId, objectId, {
      ...V.withoutReserved(attributesOf(body.attributes, 'attributes'), V.MODEL_RESERVED_KEYS),
      ...V.classFields('Model'),
      name: body.name,
      description: body.description ?? null,
      files: { 'obj.py': file.digest },
    });
    return { ...version, model_ref: V.objectRef(projectId, objectId, version.digest) };
  }

  async evaluationCreate(
    caller: Caller,
    projectId: string,
    body: S.EvaluationCreateBody,
  ): Promise<PublishedVersion & { evaluation_ref: string }> {
    const trials = body.trials ?? 1;
    if (trials < 1) throw new ObjectInvalidRequestError(`trials must be at least 1, got ${trials}`, 'ValueError');
    const opNames = Object.keys(V.EVALUATION_OP_SOURCES) as Array<keyof typeof V.EVALUATION_OP_SOURCES>;
    const objectId = await this.#prepare(
      caller,
      projectId,
      V.makeObjectId(body.name, V.DEFAULT_OBJECT_ID.evaluations),
      opNames.map((op) => `.${op}`),
    );
    const opRefs: JsonObject = {};
    for (const op of opNames) {
      const published = await this.#publishOp(caller, projectId, `${objectId}.${op}`, V.EVALUATION_OP_SOURCES[op]);
      opRefs[op] = V.opRef(projectId, published.object_id, published.digest);
    }
    const version = await this.#publish(caller, projectId, objectId, {
      ...V.withoutReserved(attributesOf(body.eval_attributes, 'eval_attributes'), V.EVALUATION_RESERVED_KEYS),
      ...V.classFields('Evaluation'),
      name: body.name,
      description: body.description ?? null,
      dataset: body.dataset,
      scorers: body.scorers ?? [],
      trials,
      evaluation_name: body.evaluation_name ?? null,
      metadata: null,
      preprocess_model_input: null,
      ...opRefs,
    });
    return { ...version, evaluation_ref: V.objectRef(projectId, objectId, version.digest) };
  }

  /** One version as the family shows it; 404 when missing or of another family, 404 with `deleted_at` when deleted. */
  async read(
    caller: Caller,
    projectId: string,
    family: V.V2Family,
    objectId: string,
    digest: string,
  ): Promise<S.V2ReadRes> {
    this.access.assertCanRead(caller, projectId);
    const row = await this.store.objects.findVersion(projectId, objectId, readSelector(digest));
    if (row === null || !V.belongsToFamily(row, family))
      throw new ObjectNotFoundError(`${familyLabel(family)} ${objectId}:${digest} not found`);
    if (row.deleted_at !== null) {
      const deletedAt = formatMicros(row.deleted_at);
      throw new ObjectDeletedError(`${objectId}:v${row.version_index} was deleted at ${deletedAt}`, deletedAt);
    }
    return this.#view(caller, projectId, family, row, 'read');
  }

  /** Every live version of the family: `object_id` ascending, then newest version first (§2.1), one JSON text each. */
  async *list(caller: Caller, projectId: string, family: V.V2Family, page: S.V2ListQuery): AsyncGenerator<string> {
    this.access.assertCanRead(caller, projectId);
    if (page.limit != null && page.limit < 0)
      throw new ObjectInvalidRequestError('limit must be non-negative', 'ValueError');
    if (page.offset != null && page.offset < 0)
      throw new ObjectInvalidRequestError('offset must be non-negative', 'ValueError');
    const rows = await this.store.objects.query({ project_id: projectId, filter: V.familyFilter(family) });
    const ordered = rows.filter((row) => V.belongsToFamily(row, family)).sort(listOrder);
    const start = page.offset ?? 0;
    const selected = ordered.slice(start, page.limit == null ? undefined : start + page.limit);
    for (const row of selected) yield `${JSON.stringify(await this.#view(caller, projectId, family, row, 'list'))}\n`;
  }

  /**
   * Deletes the named versions of the family's object, or all of them (§2.1). An unknown object,
   * one of another family, or any digest that is not a live version of it → 404, nothing deleted.
   */
  async delete(
    caller: Caller,
    projectId: string,
    family: V.V2Family,
    objectId: string,
    digests: string[] | null,
  ): Promise<{ num_deleted: number }> {
    await this.access.assertCanWrite(caller, projectId);
    const live = await this.store.objects.query({ project_id: projectId, filter: { object_ids: [objectId] } });
    const own = live.filter((row) => V.belongsToFamily(row, family));
    if (own.length === 0) throw new ObjectNotFoundError(`${familyLabel(family)} ${objectId} not found`);
    const ownDigests = new Set(own.map((row) => row.digest));
    const wanted = digests === null || digests.length === 0 ? null : [...new Set(digests)];
    const missing = wanted?.filter((digest) => !ownDigests.has(digest)) ?? [];
    if (missing.length > 0)
      throw new ObjectNotFoundError(`${familyLabel(family)} ${objectId} has no version ${missing.join(', ')}`);
    // with other kinds of versions under the same id, name this family's versions explicitly
    const selection = wanted ?? (own.length === live.length ? null : [...ownDigests]);
    const { num_deleted } = await this.objects.objDelete(caller, {
      project_id: projectId,
      object_id: objectId,
      digests: selection,
    });
    return { num_deleted };
  }

  /**
   * An op with a fixed placeholder source (docs/spec/evaluations.md §3.2): the same name gives the same
   * digest every time, so repeated use adds no versions. Returns the op's ref.
   */
  async placeholderOpRef(caller: Caller, projectId: string, objectId: string): Promise<string> {
    await this.#prepare(caller, projectId, objectId);
    const { digest } = await this.#publishOp(caller, projectId, objectId, V.OP_SOURCE_PLACEHOLDER);
    const [entity = '', project = ''] = projectId.split('/');
    return formatRef({ kind: 'op', entity, project, name: objectId, version: digest, extra: [] });
  }

  /** Checks write access and every object id the create will use (§2.2), before anything is written. */
  async #prepare(caller: Caller, projectId: string, objectId: string, derivedSuffixes: string[] = []): Promise<string> {
    assertValidObjectId(objectId);
    for (const suffix of derivedSuffixes) assertValidObjectId(objectId + suffix);
    await this.access.assertCanWrite(caller, projectId);
    return objectId;
  }

  /** §2.3: the source as file `obj.py`, then the op naming it. */
  async #publishOp(caller: Caller, projectId: string, objectId: string, source: string): Promise<PublishedVersion> {
    const file = await this.files.createFromBytes(caller, projectId, 'obj.py', Buffer.from(source, 'utf8'));
    return this.#publish(caller, projectId, objectId, V.opValue(file.digest));
  }

  /** Creates the version through `/obj/create`'s path (a repeated value answers the existing version). */
  async #publish(caller: Caller, projectId: string, objectId: string, val: JsonObject): Promise<PublishedVersion> {
    const req = { obj: { project_id: projectId, object_id: objectId, val } } as ObjCreateReq;
    const { digest, version_index } = await this.objects.createVersion(caller, req);
    return { digest, object_id: objectId, version_index };
  }

  #view(
    caller: Caller,
    projectId: string,
    family: V.V2Family,
    row: ObjectVersionRow,
    mode: ViewMode,
  ): Promise<S.V2ReadRes> {
    return familyView(family, row, (digest) => this.#readText(caller, projectId, digest), mode);
  }

  async #readText(caller: Caller, projectId: string, digest: string): Promise<string | null> {
    try {
      const { chunks } = await this.files.fileContent(caller, { project_id: projectId, digest });
      const parts: Buffer[] = [];
      for await (const chunk of chunks) parts.push(chunk);
      return Buffer.concat(parts).toString('utf8');
    } catch (error) {
      if (error instanceof ObjectNotFoundError) return null;
      throw error;
    }
  }
}

function familyLabel(family: V.V2Family): string {
  return V.DEFAULT_OBJECT_ID[family];
}

/** `object_id` ascending by code point, then `version_index` descending. */
function listOrder(a: ObjectVersionRow, b: ObjectVersionRow): number {
  if (a.object_id !== b.object_id) return a.object_id < b.object_id ? -1 : 1;
  return b.version_index - a.version_index;
}

/** Attributes must be a JSON object (a number literal parses to an object, so the schema alone cannot tell). */
function attributesOf(value: unknown, field: string): JsonObject | null {
  if (value == null) return null;
  if (!isJsonObject(value)) throw new ObjectInvalidRequestError(`${field} must be an object`, 'ValueError');
  return value;
}

/** Rows must be JSON objects; a number literal parses to an object, so the schema alone cannot tell (422 like a schema failure). */
function assertRowObjects(rows: unknown[]): void {
  const bad = rows.findIndex((row) => !isJsonObject(row));
  if (bad >= 0)
    throw new RequestValidationError([
      { loc: ['body', 'rows', String(bad)], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
}
