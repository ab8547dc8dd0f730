import { canonicalJson } from '../domain/canonical-json.js';
import { parseRef, RefParseError, type ParsedRef } from '../domain/ref-uri.js';
import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';
import { MISSING, RefResolver, type ObjectRef } from './ref-resolver.js';

/** Most refs one `/refs/read_batch` may name (docs/spec/objects.md §5.2). */
export const MAX_REFS = 1000;

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
  if (ref.version === 'latest')
    throw new ObjectInvalidRequestError('Reading refs with `latest` is not supported', 'ValueError');
  return ref;
}

/** Refs (docs/spec/objects.md §5): `/refs/read_batch`. */
export class RefService {
  readonly #resolver: RefResolver;

  constructor(
    store: TraceStore,
    private readonly access: ProjectAccess,
  ) {
    this.#resolver = new RefResolver(store);
  }

  /** `{"vals": [...]}` as JSON text; values are rendered losslessly (floats keep `.0`). */
  async readBatch(caller: Caller, refs: string[]): Promise<string> {
    if (refs.length > MAX_REFS)
      throw new ObjectInvalidRequestError(
        `Too many refs: ${refs.length} given, at most ${MAX_REFS} allowed`,
        'ValueError',
      );
    const parsed = refs.map(parseTopLevel);
    for (const projectId of new Set(parsed.map((ref) => `${ref.entity}/${ref.project}`)))
      this.access.assertCanRead(caller, projectId);
    const vals: string[] = [];
    for (const ref of parsed) {
      const root = await this.#resolver.loadObject(ref, true);
      const value =
        root === MISSING ? MISSING : await this.#resolver.walk(`${ref.entity}/${ref.project}`, root, ref.extra);
      vals.push(value === MISSING ? 'null' : canonicalJson(value));
    }
    return `{"vals":[${vals.join(',')}]}`;
  }
}
