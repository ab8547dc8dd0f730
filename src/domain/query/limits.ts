import { InvalidRequestError } from '../../errors/app-error.js';

/**
 * Bounds on what one query may ask for, checked before anything is compiled so that both stores
 * refuse the same requests with a 400 naming the limit (issue 17: past these, SQLite answered 500
 * at its own limits and a few hundred bytes of nesting could hold a node for seconds).
 */
export const QUERY_LIMITS = {
  /** Operators nested inside one another (`$not` of `$and` of `$eq` is 3). */
  depth: 24,
  /** Operators, fields and literals in one `$expr` together. */
  nodes: 10_000,
  /** Entries of one `$in` list, and arguments of one `$and`/`$or`. */
  listItems: 5_000,
  /** Segments of one field path (`inputs.a.b` is 3). */
  pathSegments: 32,
  /** Characters of one field path. */
  pathChars: 1_024,
  /** `sort_by` keys. */
  sortKeys: 32,
  /** `expand_columns` entries. */
  expandColumns: 100,
} as const;

/** Throws unless `path` (a field path as the request wrote it) is within the limits. */
export function checkFieldPath(path: string, what = 'field path'): void {
  // SQLite reads JSON paths and text as C strings: a NUL would cut the path short or fail the query
  if (path.includes('\u0000')) throw new InvalidRequestError(`A ${what} must not contain a NUL character`);
  if (path.length > QUERY_LIMITS.pathChars)
    throw new InvalidRequestError(
      `A ${what} is ${path.length} characters long; the limit is ${QUERY_LIMITS.pathChars} characters`,
    );
  const segments = path.split('.').length;
  if (segments > QUERY_LIMITS.pathSegments)
    throw new InvalidRequestError(
      `A ${what} has ${segments} segments; the limit is ${QUERY_LIMITS.pathSegments} segments`,
    );
}

/** Throws unless a list of `count` entries (`$in`, `$and`, `$or`, sort keys …) is within `limit`. */
export function checkCount(count: number, limit: number, what: string): void {
  if (count > limit) throw new InvalidRequestError(`${what} has ${count} entries; the limit is ${limit}`);
}

/** Counts the nodes of one `$expr` while it is parsed, refusing a tree that is too deep or too large. */
export class QueryBudget {
  #nodes = 0;

  /** Called once per node at nesting `depth` (the root operation is 1). */
  enter(depth: number): void {
    if (depth > QUERY_LIMITS.depth)
      throw new InvalidRequestError(`Query operators nest deeper than the limit of ${QUERY_LIMITS.depth} levels`);
    this.#nodes += 1;
    if (this.#nodes > QUERY_LIMITS.nodes)
      throw new InvalidRequestError(`Query has more than the limit of ${QUERY_LIMITS.nodes} operators and operands`);
  }
}
