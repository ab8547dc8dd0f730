import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import type { RecordField } from './rows.js';
import { splitFieldPath } from './query/parse.js';

/**
 * Field paths of the feedback and price queries (docs/spec/objects.md §7.4, §8.3), and the id-only
 * query shape that purges accept (§7.6, §8.4).
 */

export const FEEDBACK_STRING_COLUMNS = [
  'id',
  'project_id',
  'weave_ref',
  'wb_user_id',
  'creator',
  'feedback_type',
  'annotation_ref',
  'runnable_ref',
  'call_ref',
  'trigger_ref',
  'queue_id',
  'span_agent_name',
  'span_agent_version',
  'span_status_code',
  'span_conversation_id',
  'span_trace_id',
  'scorer_trace_id',
] as const;
export const FEEDBACK_JSON_COLUMNS = [
  'payload',
  'scorer_tags',
  'scorer_tag_reasons',
  'scorer_tag_confidences',
  'scorer_ratings',
  'scorer_rating_reasons',
  'scorer_rating_confidences',
] as const;
/** Every column in the order responses list them. */
export const FEEDBACK_COLUMNS: readonly string[] = [
  'id',
  'project_id',
  'weave_ref',
  'wb_user_id',
  'creator',
  'created_at',
  'feedback_type',
  'payload',
  'annotation_ref',
  'runnable_ref',
  'call_ref',
  'trigger_ref',
  'queue_id',
  'scorer_tags',
  'scorer_tag_reasons',
  'scorer_tag_confidences',
  'scorer_ratings',
  'scorer_rating_reasons',
  'scorer_rating_confidences',
  'span_agent_name',
  'span_agent_version',
  'span_status_code',
  'span_conversation_id',
  'span_trace_id',
  'scorer_trace_id',
];

export function resolveFeedbackField(path: string): RecordField {
  const [head, ...rest] = splitFieldPath(path);
  if ((FEEDBACK_STRING_COLUMNS as readonly string[]).includes(head) && rest.length === 0)
    return { kind: 'column', name: head, type: 'string' };
  if (head === 'created_at' && rest.length === 0) return { kind: 'column', name: head, type: 'datetime' };
  if ((FEEDBACK_JSON_COLUMNS as readonly string[]).includes(head)) return { kind: 'json', column: head, path: rest };
  throw new ObjectInvalidRequestError(`Unknown feedback field: ${path}`);
}

const COST_STRING_COLUMNS = [
  'id',
  'llm_id',
  'provider_id',
  'pricing_level',
  'prompt_token_cost_unit',
  'completion_token_cost_unit',
  'created_by',
];
const COST_NUMBER_COLUMNS = [
  'prompt_token_cost',
  'completion_token_cost',
  'cache_read_input_token_cost',
  'cache_creation_input_token_cost',
];
/** The keys of a `/cost/query` result item (docs/spec/objects.md §8.3). */
export const COST_OUTPUT_FIELDS = [
  'id',
  'llm_id',
  'prompt_token_cost',
  'completion_token_cost',
  'cache_read_input_token_cost',
  'cache_creation_input_token_cost',
  'prompt_token_cost_unit',
  'completion_token_cost_unit',
  'effective_date',
  'provider_id',
] as const;

export function resolveCostField(path: string): RecordField {
  if (COST_STRING_COLUMNS.includes(path)) return { kind: 'column', name: path, type: 'string' };
  // the project column holds pricing_level_id (docs/spec/objects.md §8.1)
  if (path === 'pricing_level_id') return { kind: 'column', name: 'project_id', type: 'string' };
  if (COST_NUMBER_COLUMNS.includes(path)) return { kind: 'column', name: path, type: 'number' };
  if (path === 'effective_date' || path === 'created_at') return { kind: 'column', name: path, type: 'datetime' };
  throw new ObjectInvalidRequestError(`Unknown cost field: ${path}`);
}

type Raw = Record<string, unknown>;
const isRaw = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);
const only = (node: unknown, key: string): unknown =>
  isRaw(node) && Object.keys(node).length === 1 && key in node ? node[key] : undefined;
const isIdField = (node: unknown): boolean => only(node, '$getField') === 'id';
const stringLiteral = (node: unknown): string | null => {
  const value = only(node, '$literal');
  return typeof value === 'string' ? value : null;
};

/** `{"$eq": [{"$getField": "id"}, {"$literal": "<id>"}]}` → the id. */
function eqId(node: unknown): string | null {
  const args = only(node, '$eq');
  if (!Array.isArray(args) || args.length !== 2 || !isIdField(args[0])) return null;
  return stringLiteral(args[1]);
}

/** `{"$in": [{"$getField": "id"}, [{"$literal": …}, …]]}` → the ids. */
function inIds(node: unknown): string[] | null {
  const args = only(node, '$in');
  if (!Array.isArray(args) || args.length !== 2 || !isIdField(args[0]) || !Array.isArray(args[1])) return null;
  const ids = args[1].map(stringLiteral);
  return ids.every((id): id is string => id !== null) ? ids : null;
}

/**
 * The ids a purge query names, or null when it is not one of the allowed shapes: `$eq` on `id`,
 * or `$or` of such `$eq`s; `allowIn` also accepts `$in` on `id` (costs, §8.4).
 */
export function purgeIds(query: { $expr: unknown }, allowIn: boolean): string[] | null {
  const root = query.$expr;
  const single = eqId(root);
  if (single !== null) return [single];
  if (allowIn) {
    const listed = inIds(root);
    if (listed !== null) return listed;
  }
  const alternatives = only(root, '$or');
  if (!Array.isArray(alternatives) || alternatives.length === 0) return null;
  const ids = alternatives.map(eqId);
  return ids.every((id): id is string => id !== null) ? ids : null;
}
