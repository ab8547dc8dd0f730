import { InvalidRequestError } from '../../errors/app-error.js';
import { resolveCallField } from '../../domain/call-fields.js';
import { parseQuery } from '../../domain/query/parse.js';
import type { CallsQuery } from '../../store/types.js';

/**
 * The calls queries behind the evaluation-run, prediction and score lists
 * (docs/spec/evaluations.md §3.3–§3.5): attribute equalities and memberships AND-ed, in start order.
 */

export type AttributeCondition = { path: string; equals: string } | { path: string; oneOf: string[] };

function conditionExpr(condition: AttributeCondition): Record<string, unknown> {
  const field = { $getField: condition.path };
  if ('equals' in condition) return { $eq: [field, { $literal: condition.equals }] };
  return { $in: [field, condition.oneOf.map((value) => ({ $literal: value }))] };
}

/** `limit`/`offset` of a list: integers ≥ 0 (negative → 400, our choice). */
export function checkListPaging(
  limit: number | undefined,
  offset: number | undefined,
): { limit: number | null; offset: number } {
  if ((limit !== undefined && limit < 0) || (offset !== undefined && offset < 0))
    throw new InvalidRequestError('limit and offset must not be negative');
  return { limit: limit ?? null, offset: offset ?? 0 };
}

export function attributeQuery(
  projectId: string,
  conditions: AttributeCondition[],
  page: { limit: number | null; offset: number },
  callIds: string[] | null = null,
): CallsQuery {
  const where = parseQuery({ $expr: { $and: conditions.map(conditionExpr) } }, resolveCallField);
  return {
    project_id: projectId,
    filter: callIds === null ? null : { call_ids: callIds },
    where,
    sort_by: null,
    limit: page.limit,
    offset: page.offset,
  };
}

/**
 * The calls of a prediction or score list: those carrying the marker (`attributes.weave.<marker>`
 * = "true"), of one run when `evaluation_run_id` is given; null when the page is empty (`limit=0`).
 */
export function markedChildQuery(
  projectId: string,
  marker: 'prediction' | 'score',
  q: { evaluation_run_id?: string; limit?: number; offset?: number },
): CallsQuery | null {
  const page = checkListPaging(q.limit, q.offset);
  if (page.limit === 0) return null;
  const conditions: AttributeCondition[] = [{ path: `attributes.weave.${marker}`, equals: 'true' }];
  if (q.evaluation_run_id !== undefined)
    conditions.push({ path: 'attributes.weave.evaluation_run_id', equals: q.evaluation_run_id });
  return attributeQuery(projectId, conditions, page);
}
