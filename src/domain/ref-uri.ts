import { REF_PREFIX } from './refs.js';

/**
 * The external ref grammar of docs/spec/objects.md §5.1:
 * `weave:///<entity>/<project>/(object|op)/<name>:<version>[/<edge>/<value>]*`,
 * `weave:///<entity>/<project>/table/<digest>`, `weave:///<entity>/<project>/call/<id>`.
 */

export type RefEdge = 'attr' | 'key' | 'index' | 'id';

export interface RefStep {
  edge: RefEdge;
  /** Percent-decoded value; for `index` a decimal integer. */
  value: string;
}

export type ParsedRef =
  | { kind: 'object' | 'op'; entity: string; project: string; name: string; version: string; extra: RefStep[] }
  | { kind: 'table'; entity: string; project: string; digest: string }
  | { kind: 'call'; entity: string; project: string; id: string };

/** A string that does not follow the grammar; the message says what is wrong. */
export class RefParseError extends Error {}

const EDGES: ReadonlySet<string> = new Set(['attr', 'key', 'index', 'id']);

/** Values are percent-encoded (every byte outside `A–Z a–z 0–9 _ . - ~`); this undoes it. */
function decodePart(text: string, uri: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RefParseError(`Invalid URI: ${uri} (bad percent-encoding)`);
  }
}

/** §5.1: every byte outside `A–Z a–z 0–9 _ . - ~` as `%XX`. */
export function encodeRefPart(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function parseExtra(parts: string[], uri: string): RefStep[] {
  if (parts.length % 2 !== 0) throw new RefParseError(`Invalid URI: ${uri} (extra path must be edge/value pairs)`);
  const steps: RefStep[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    // parts has even length, so both halves of the pair exist
    const edge = parts[i]!;
    if (!EDGES.has(edge)) throw new RefParseError(`Invalid URI: ${uri} (unknown edge "${edge}")`);
    const value = decodePart(parts[i + 1]!, uri);
    if (edge === 'index' && !/^-?\d+$/.test(value))
      throw new RefParseError(`Invalid URI: ${uri} (index must be an integer)`);
    steps.push({ edge: edge as RefEdge, value });
  }
  return steps;
}

/** Parses an external ref; throws RefParseError when it does not follow §5.1. */
export function parseRef(uri: string): ParsedRef {
  if (!uri.startsWith(REF_PREFIX)) throw new RefParseError(`Invalid URI: ${uri} (must start with ${REF_PREFIX})`);
  const parts = uri.slice(REF_PREFIX.length).split('/');
  if (parts.length < 4) throw new RefParseError(`Invalid URI: ${uri} (too few parts)`);
  const [entity = '', project = '', kind, target = '', ...rest] = parts;
  if (entity === '' || project === '') throw new RefParseError(`Invalid URI: ${uri} (empty entity or project)`);
  if (target === '') throw new RefParseError(`Invalid URI: ${uri} (empty ${kind})`);
  if (kind === 'table' || kind === 'call') {
    if (rest.length > 0) throw new RefParseError(`Invalid URI: ${uri} (unexpected path after ${kind})`);
    return kind === 'table' ? { kind, entity, project, digest: target } : { kind, entity, project, id: target };
  }
  if (kind !== 'object' && kind !== 'op') throw new RefParseError(`Invalid URI: ${uri} (unknown kind "${kind}")`);
  const [name, version, ...more] = target.split(':');
  if (!name || !version || more.length > 0) {
    throw new RefParseError(`Invalid URI: ${uri} (expected <name>:<version>)`);
  }
  return {
    kind,
    entity,
    project,
    name: decodePart(name, uri),
    version: decodePart(version, uri),
    extra: parseExtra(rest, uri),
  };
}

/** Renders a parsed ref back to its external form (values percent-encoded). */
export function formatRef(ref: ParsedRef): string {
  const base = `${REF_PREFIX}${ref.entity}/${ref.project}/${ref.kind}/`;
  if (ref.kind === 'table') return base + ref.digest;
  if (ref.kind === 'call') return base + ref.id;
  const extra = ref.extra.map((step) => `/${step.edge}/${encodeRefPart(step.value)}`).join('');
  return `${base}${encodeRefPart(ref.name)}:${encodeRefPart(ref.version)}${extra}`;
}
