import { canonicalJson } from '../domain/canonical-json.js';
import { isJsonObject, parseLosslessJson, type JsonValue } from '../domain/json-value.js';
import { parseRef, RefParseError, type ParsedRef, type RefStep } from '../domain/ref-uri.js';
import { REF_PREFIX } from '../domain/refs.js';
import { ObjectInvalidRequestError, ObjectNotFoundError } from '../errors/object-errors.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { readSelector } from './object-service.js';
import type { ProjectAccess } from './project-access.js';

/** Most refs one `/refs/read_batch` may name (objects spec §5.2). */
export const MAX_REFS = 1000;

type ObjectRef = Extract<ParsedRef, { kind: 'object' | 'op' }>;

/** A ref's value is absent (deleted version, missed path step): the slot answers null. */
const MISSING = Symbol('missing');
type Resolved = JsonValue | typeof MISSING;

/** §5.2 checks on one top-level ref, before anything is read. */
function parseTopLevel(uri: string): ObjectRef {
  let ref: ParsedRef;
  try {
    ref = parseRef(uri);
  } catch (error) {
    if (error instanceof RefParseError) throw new ObjectInvalidRequestError(error.message, 'InvalidExternalRef');
    throw error;
  }
  if (ref.kind === 'table') throw new ObjectInvalidRequestError('Table refs not supported', 'ValueError');
  if (ref.kind === 'call') throw new ObjectInvalidRequestError('Call refs not supported', 'ValueError');
  if (ref.version === 'latest') throw new ObjectInvalidRequestError('Reading refs with `latest` is not supported', 'ValueError');
  return ref;
}

/** One dict/list step (§5.3 rule 3); MISSING when it misses. */
function applyStep(value: JsonValue, step: RefStep): Resolved {
  if (step.edge === 'index') {
    const index = Number(step.value);
    if (!Array.isArray(value) || index < 0 || index >= value.length) return MISSING;
    return value[index];
  }
  if (step.edge === 'id' || !isJsonObject(value) || !Object.hasOwn(value, step.value)) return MISSING;
  return value[step.value];
}

/** Refs (objects spec §5): `/refs/read_batch`. */
export class RefService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  /** `{"vals": [...]}` as JSON text; values are rendered losslessly (floats keep `.0`). */
  async readBatch(caller: Caller, refs: string[]): Promise<string> {
    if (refs.length > MAX_REFS) throw new ObjectInvalidRequestError(`Too many refs: ${refs.length} given, at most ${MAX_REFS} allowed`, 'ValueError');
    const parsed = refs.map(parseTopLevel);
    for (const projectId of new Set(parsed.map((ref) => `${ref.entity}/${ref.project}`))) this.access.assertCanRead(caller, projectId);
    const vals: string[] = [];
    for (const ref of parsed) {
      const root = await this.#loadObject(ref, true);
      const value = root === MISSING ? MISSING : await this.#walk(`${ref.entity}/${ref.project}`, root, ref.extra);
      vals.push(value === MISSING ? 'null' : canonicalJson(value));
    }
    return `{"vals":[${vals.join(',')}]}`;
  }

  /** The object version's value; MISSING when deleted (or, for nested refs, missing); 404 for a missing root. */
  async #loadObject(ref: ObjectRef, isRoot: boolean): Promise<Resolved> {
    if (ref.version === 'latest' && !isRoot) return MISSING;
    const row = await this.store.objects.findVersion(`${ref.entity}/${ref.project}`, ref.name, readSelector(ref.version));
    if (row === null) {
      if (isRoot) throw new ObjectNotFoundError(`Obj ${ref.name}:${ref.version} not found`);
      return MISSING;
    }
    return row.deleted_at === null ? parseLosslessJson(row.val) : MISSING;
  }

  /** §5.3: follow the steps, dereferencing ref strings met on the way (same project only). */
  async #walk(projectId: string, start: JsonValue, steps: RefStep[]): Promise<Resolved> {
    let value: JsonValue = start;
    for (let i = 0; i < steps.length; i += 1) {
      let consumed = false;
      for (let hops = 0; typeof value === 'string' && value.startsWith(REF_PREFIX) && !consumed; hops += 1) {
        if (hops > 32) return MISSING;
        const next = await this.#deref(projectId, value, steps[i]);
        if (next === MISSING) return MISSING;
        value = next.value;
        consumed = next.consumed;
      }
      if (consumed) continue;
      const next = applyStep(value, steps[i]);
      if (next === MISSING) return MISSING;
      if (next === null) return i === steps.length - 1 ? null : MISSING;
      value = next;
    }
    return value;
  }

  /** The value a ref string met mid-walk stands for; a table ref consumes the `id` step. */
  async #deref(projectId: string, uri: string, step: RefStep): Promise<{ value: JsonValue; consumed: boolean } | typeof MISSING> {
    let nested: ParsedRef;
    try {
      nested = parseRef(uri);
    } catch {
      return MISSING;
    }
    if (`${nested.entity}/${nested.project}` !== projectId || nested.kind === 'call') return MISSING;
    if (nested.kind === 'table') {
      if (step.edge !== 'id') throw new ObjectInvalidRequestError(`Expected an id step after table ref ${uri}`, 'ValueError');
      const row = await this.store.tables.row(projectId, nested.digest, step.value);
      return row == null ? MISSING : { value: parseLosslessJson(row), consumed: true };
    }
    const loaded = await this.#loadObject(nested, false);
    if (loaded === MISSING) return MISSING;
    const inner = await this.#walk(projectId, loaded, nested.extra);
    return inner === MISSING ? MISSING : { value: inner, consumed: false };
  }
}
