import { InvalidRequestError, RequestValidationError } from '../../errors/app-error.js';
import type { ConvertTarget, Operand, Operation, SortKey } from './ast.js';
import { checkCount, checkFieldPath, QUERY_LIMITS, QueryBudget } from './limits.js';

/**
 * Turns a schema-valid `{"$expr": …}` into the query tree, resolving each field path with the
 * owning area's resolver (which throws for fields it does not allow).
 */
export type FieldResolver<F> = (path: string) => F;

type Raw = Record<string, unknown>;

export function parseQuery<F>(query: { $expr: unknown }, resolve: FieldResolver<F>): Operation<F> {
  const root = parseOperand(query.$expr as Raw, resolve, new QueryBudget(), 1);
  if (root.kind === 'literal' || root.kind === 'field' || root.kind === 'convert') {
    throw new RequestValidationError([
      { loc: ['body', 'query', '$expr'], msg: 'The root of a query must be an operation', type: 'value_error' },
    ]);
  }
  return root;
}

export function parseSort<F>(
  sortBy: Array<{ field: string; direction: 'asc' | 'desc' }>,
  resolve: FieldResolver<F>,
): SortKey<F>[] {
  checkCount(sortBy.length, QUERY_LIMITS.sortKeys, 'sort_by');
  return sortBy.map((s) => {
    checkFieldPath(s.field, 'sort field');
    return { field: resolve(s.field), direction: s.direction };
  });
}

function parseOperand<F>(node: Raw, resolve: FieldResolver<F>, budget: QueryBudget, depth: number): Operand<F> {
  budget.enter(depth);
  const child = (raw: Raw): Operand<F> => parseOperand(raw, resolve, budget, depth + 1);
  // schema-valid operands have exactly one key; an empty object falls to the default case
  const [key = ''] = Object.keys(node);
  const value = node[key];
  switch (key) {
    case '$literal':
      return { kind: 'literal', value };
    case '$getField':
      checkFieldPath(value as string);
      return { kind: 'field', field: resolve(value as string) };
    case '$convert': {
      const spec = value as { input: Raw; to: ConvertTarget };
      return { kind: 'convert', input: child(spec.input), to: spec.to };
    }
    case '$and':
    case '$or': {
      const args = value as Raw[];
      if (args.length === 0) throw new InvalidRequestError(`Empty ${key === '$and' ? 'AND' : 'OR'} operation`);
      checkCount(args.length, QUERY_LIMITS.listItems, key);
      return { kind: key === '$and' ? 'and' : 'or', args: args.map(child) };
    }
    case '$not':
      return { kind: 'not', arg: child((value as [Raw])[0]) };
    case '$eq':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const [left, right] = value as [Raw, Raw];
      return {
        kind: 'compare',
        op: key.slice(1) as 'eq',
        left: child(left),
        right: child(right),
      };
    }
    case '$in': {
      const [left, list] = value as [Raw, Raw[]];
      checkCount(list.length, QUERY_LIMITS.listItems, '$in');
      return { kind: 'in', left: child(left), list: list.map(child) };
    }
    case '$contains':
    case '$containsToken': {
      const spec = value as { input: Raw; substr: Raw; case_insensitive?: boolean };
      return {
        kind: 'contains',
        input: child(spec.input),
        substr: child(spec.substr),
        caseInsensitive: spec.case_insensitive === true,
        wholeToken: key === '$containsToken',
      };
    }
    default:
      throw new RequestValidationError([
        { loc: ['body', 'query'], msg: `Unknown operator ${key}`, type: 'value_error' },
      ]);
  }
}

/** Splits a field path on `.`, where `\.` is a literal dot inside a key. */
export function splitFieldPath(path: string): [string, ...string[]] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i += 1) {
    const ch = path[i];
    if (ch === '\\' && path[i + 1] === '.') {
      current += '.';
      i += 1;
    } else if (ch === '.') {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts as [string, ...string[]];
}
