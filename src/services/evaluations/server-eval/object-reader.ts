import { isRecord, type JsonRecord } from '../../../domain/eval-results/types.js';
import { parseRef, RefParseError } from '../../../domain/ref-uri.js';
import { REF_PREFIX } from '../../../domain/refs.js';
import { InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import type { TraceStore } from '../../../store/types.js';
import { readSelector } from '../../object-service.js';

/** A published object version read by ref, with its value parsed. */
export interface LoadedObject {
  /** The ref as given when it named a digest, else rebuilt with the resolved digest. */
  ref: string;
  name: string;
  digest: string;
  val: JsonRecord;
}

/** The class an object value declares (`_class_name`, else `_type`). */
export const classOf = (val: JsonRecord): string | null =>
  typeof val._class_name === 'string' ? val._class_name : typeof val._type === 'string' ? val._type : null;

export const isRefString = (value: unknown): value is string =>
  typeof value === 'string' && value.startsWith(REF_PREFIX);

/**
 * Reads the objects a server-side evaluation runs (docs/spec/evaluations.md §6.1, our choice):
 * a ref that does not parse as an object ref, or names another project, is a 400; a missing or
 * deleted version is a 404.
 */
export class ObjectReader {
  constructor(private readonly store: TraceStore) {}

  async byRef(projectId: string, ref: unknown, what: string): Promise<LoadedObject> {
    if (typeof ref !== 'string') throw new InvalidRequestError(`${what} must be an object ref`);
    let parsed;
    try {
      parsed = parseRef(ref);
    } catch (error) {
      if (error instanceof RefParseError) throw new InvalidRequestError(`${what}: ${error.message}`);
      throw error;
    }
    if (parsed.kind !== 'object' || parsed.extra.length > 0)
      throw new InvalidRequestError(
        `${what} must be an object ref (weave:///<entity>/<project>/object/<name>:<digest>)`,
      );
    if (`${parsed.entity}/${parsed.project}` !== projectId)
      throw new InvalidRequestError(`${what} must belong to project ${projectId}`);
    const row = await this.store.objects.findVersion(projectId, parsed.name, readSelector(parsed.version));
    if (row === null || row.deleted_at !== null)
      throw new NotFoundError(`${what} ${parsed.name}:${parsed.version} not found`);
    const val: unknown = JSON.parse(row.val);
    if (!isRecord(val)) throw new InvalidRequestError(`${what} ${parsed.name} is not an object`);
    return {
      ref: `${REF_PREFIX}${projectId}/object/${parsed.name}:${row.digest}`,
      name: parsed.name,
      digest: row.digest,
      val,
    };
  }

  /** The latest live version of an object by name, or null. */
  async latest(projectId: string, name: string): Promise<LoadedObject | null> {
    const row = await this.store.objects.findVersion(projectId, name, { by: 'latest' });
    if (row === null || row.deleted_at !== null) return null;
    const val: unknown = JSON.parse(row.val);
    return isRecord(val)
      ? { ref: `${REF_PREFIX}${projectId}/object/${name}:${row.digest}`, name, digest: row.digest, val }
      : null;
  }

  /** The digest of a `weave:///<project>/table/<digest>` ref in the project, else null. */
  tableDigest(projectId: string, ref: unknown): string | null {
    if (typeof ref !== 'string') return null;
    try {
      const parsed = parseRef(ref);
      return parsed.kind === 'table' && `${parsed.entity}/${parsed.project}` === projectId ? parsed.digest : null;
    } catch (error) {
      if (error instanceof RefParseError) return null;
      throw error;
    }
  }

  /** A table's rows in table order. */
  async tableRows(projectId: string, digest: string): Promise<Array<{ digest: string; val: JsonRecord }>> {
    const out: Array<{ digest: string; val: JsonRecord }> = [];
    for await (const row of this.store.tables.query({ project_id: projectId, digest })) {
      const val: unknown = JSON.parse(row.val);
      out.push({ digest: row.digest, val: isRecord(val) ? val : { value: val } });
    }
    return out;
  }

  async tableCount(projectId: string, digest: string): Promise<number | null> {
    const [stats] = await this.store.tables.stats(projectId, [digest], false);
    return stats?.count ?? null;
  }
}
