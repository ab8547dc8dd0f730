import { isLosslessNumber } from './json-value.js';
import { isWellFormedRef, REF_PREFIX } from './refs.js';

/** Refs in the internal form of the hosted service; this service never accepts them (docs/spec/objects.md §5.1). */
export const INTERNAL_REF_PREFIX = 'weave-trace-internal:///';

export interface BadRef {
  kind: 'malformed' | 'internal';
  value: string;
}

/**
 * The first string leaf that is an unacceptable ref (docs/spec/objects.md §3.1, §5.5): a `weave:///`
 * string without entity, project and rest, or any internal-form ref. Walks iteratively so deep
 * values cannot overflow the stack.
 */
export function findBadRef(value: unknown): BadRef | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.startsWith(INTERNAL_REF_PREFIX)) return { kind: 'internal', value: item };
      if (item.startsWith(REF_PREFIX) && !isWellFormedRef(item)) return { kind: 'malformed', value: item };
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i -= 1) pending.push(item[i]);
    } else if (item !== null && typeof item === 'object' && !isLosslessNumber(item)) {
      pending.push(...Object.values(item).reverse());
    }
  }
  return undefined;
}
