import { isJsonObject, parseLosslessJson, type JsonValue } from '../domain/json-value.js';
import { parseRef, type ParsedRef, type RefStep } from '../domain/ref-uri.js';
import { REF_PREFIX } from '../domain/refs.js';
import { ObjectInvalidRequestError, ObjectNotFoundError } from '../errors/object-errors.js';
import type { TraceStore } from '../store/types.js';
import { readSelector } from './object-service.js';

export type ObjectRef = Extract<ParsedRef, { kind: 'object' | 'op' }>;

/** A ref's value is absent (deleted version, missed path step). */
export const MISSING = Symbol('missing');
export type Resolved = JsonValue | typeof MISSING;

/** One dict/list step (docs/spec/objects.md §5.3 rule 3); MISSING when it misses. */
function applyStep(value: JsonValue, step: RefStep): Resolved {
  if (step.edge === 'index') {
    const index = Number(step.value);
    if (!Array.isArray(value) || index < 0 || index >= value.length) return MISSING;
    return value[index]!;
  }
  if (step.edge === 'id' || !isJsonObject(value) || !Object.hasOwn(value, step.value)) return MISSING;
  return value[step.value]!;
}

/**
 * Reads the value an object or op ref names, following its extra path (docs/spec/objects.md §5.3): ref
 * strings met on the way are dereferenced within the same project, a table ref takes the next
 * `id` step as a row digest. Shared by `/refs/read_batch` and the `expand_columns` of calls queries.
 */
export class RefResolver {
  constructor(private readonly store: TraceStore) {}

  /** The object version's value; MISSING when deleted (or, for nested refs, missing); 404 for a missing root. */
  async loadObject(ref: ObjectRef, isRoot: boolean): Promise<Resolved> {
    if (ref.version === 'latest' && !isRoot) return MISSING;
    const row = await this.store.objects.findVersion(
      `${ref.entity}/${ref.project}`,
      ref.name,
      readSelector(ref.version),
    );
    if (row === null) {
      if (isRoot) throw new ObjectNotFoundError(`Obj ${ref.name}:${ref.version} not found`);
      return MISSING;
    }
    return row.deleted_at === null ? parseLosslessJson(row.val) : MISSING;
  }

  /** §5.3: follow the steps, dereferencing ref strings met on the way (same project only). */
  async walk(projectId: string, start: JsonValue, steps: RefStep[]): Promise<Resolved> {
    let value: JsonValue = start;
    for (const [i, step] of steps.entries()) {
      let consumed = false;
      for (let hops = 0; typeof value === 'string' && value.startsWith(REF_PREFIX) && !consumed; hops += 1) {
        if (hops > 32) return MISSING;
        const next = await this.#deref(projectId, value, step);
        if (next === MISSING) return MISSING;
        value = next.value;
        consumed = next.consumed;
      }
      if (consumed) continue;
      const next = applyStep(value, step);
      if (next === MISSING) return MISSING;
      if (next === null) return i === steps.length - 1 ? null : MISSING;
      value = next;
    }
    return value;
  }

  /**
   * The value an `expand_columns` ref stands for (docs/spec/calls.md §5.6), or MISSING: an object or op
   * ref of `projectId` whose version is the exact content digest of a live version, then its
   * extra path (a dataset row ref `…/attr/rows/id/<row digest>` gives the row).
   */
  async expansion(projectId: string, uri: string): Promise<Resolved> {
    let ref: ParsedRef;
    try {
      ref = parseRef(uri);
    } catch {
      return MISSING;
    }
    if ((ref.kind !== 'object' && ref.kind !== 'op') || `${ref.entity}/${ref.project}` !== projectId) return MISSING;
    const row = await this.store.objects.findVersion(projectId, ref.name, { by: 'digest', digest: ref.version });
    if (row === null || row.deleted_at !== null || row.digest !== ref.version) return MISSING;
    try {
      return await this.walk(projectId, parseLosslessJson(row.val), ref.extra);
    } catch (error) {
      // a path that cannot be followed (a table ref without a row id) leaves the ref as it is
      if (error instanceof ObjectInvalidRequestError) return MISSING;
      throw error;
    }
  }

  /** The value a ref string met mid-walk stands for; a table ref consumes the `id` step. */
  async #deref(
    projectId: string,
    uri: string,
    step: RefStep,
  ): Promise<{ value: JsonValue; consumed: boolean } | typeof MISSING> {
    let nested: ParsedRef;
    try {
      nested = parseRef(uri);
    } catch {
      return MISSING;
    }
    if (`${nested.entity}/${nested.project}` !== projectId || nested.kind === 'call') return MISSING;
    if (nested.kind === 'table') {
      if (step.edge !== 'id')
        throw new ObjectInvalidRequestError(`Expected an id step after table ref ${uri}`, 'ValueError');
      const row = await this.store.tables.row(projectId, nested.digest, step.value);
      return row == null ? MISSING : { value: parseLosslessJson(row), consumed: true };
    }
    const loaded = await this.loadObject(nested, false);
    if (loaded === MISSING) return MISSING;
    const inner = await this.walk(projectId, loaded, nested.extra);
    return inner === MISSING ? MISSING : { value: inner, consumed: false };
  }
}
