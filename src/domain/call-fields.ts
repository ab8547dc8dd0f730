import { InvalidFieldError } from '../errors/app-error.js';
import { splitFieldPath } from './query/parse.js';

/**
 * What a field path of the calls query language refers to (docs/spec/calls.md §5.2).
 */
export type CallStringColumn =
  | 'id'
  | 'project_id'
  | 'trace_id'
  | 'parent_id'
  | 'thread_id'
  | 'turn_id'
  | 'op_name'
  | 'display_name'
  | 'exception'
  | 'wb_user_id'
  | 'wb_run_id';
export type CallIntColumn = 'wb_run_step' | 'wb_run_step_end';
export type CallTimeColumn = 'started_at' | 'ended_at' | 'deleted_at';
export type CallJsonColumn = 'inputs' | 'output' | 'attributes' | 'summary';

export type CallField =
  | { kind: 'column'; name: CallStringColumn; type: 'string' }
  | { kind: 'column'; name: CallIntColumn; type: 'int' }
  | { kind: 'column'; name: CallTimeColumn; type: 'datetime' }
  /** A path into a JSON column; an empty path is the whole value. */
  | { kind: 'json'; column: CallJsonColumn; path: string[] }
  /**
   * `summary.weave.status | latency_ms | trace_name`, derived from the row (docs/spec/calls.md §2.6),
   * and the query-only `total_tokens` and `total_cost` (§5.2).
   */
  | { kind: 'derived'; name: DerivedCallField }
  /** `feedback.[type].payload.<path>`, `.runnable_ref`, `.trigger_ref` (`type` `*` = any). */
  | { kind: 'feedback'; feedbackType: string; target: { payload: string[] } | 'runnable_ref' | 'trigger_ref' };

export type DerivedCallField = 'status' | 'latency_ms' | 'trace_name' | 'total_tokens' | 'total_cost';
const DERIVED_FIELDS: readonly string[] = ['status', 'latency_ms', 'trace_name', 'total_tokens', 'total_cost'];

export const CALL_STRING_COLUMNS: readonly CallStringColumn[] = [
  'id',
  'project_id',
  'trace_id',
  'parent_id',
  'thread_id',
  'turn_id',
  'op_name',
  'display_name',
  'exception',
  'wb_user_id',
  'wb_run_id',
];
export const CALL_INT_COLUMNS: readonly CallIntColumn[] = ['wb_run_step', 'wb_run_step_end'];
export const CALL_TIME_COLUMNS: readonly CallTimeColumn[] = ['started_at', 'ended_at', 'deleted_at'];
export const CALL_JSON_COLUMNS: readonly CallJsonColumn[] = ['inputs', 'output', 'attributes', 'summary'];

/** Resolves a calls query field path (docs/spec/calls.md §5.2); unknown or forbidden fields → 422 with a reason. */
export function resolveCallField(path: string): CallField {
  if (path.startsWith('feedback.')) return resolveFeedbackField(path);
  const [head, ...rest] = splitFieldPath(path);
  if ((CALL_STRING_COLUMNS as readonly string[]).includes(head) && rest.length === 0) {
    return { kind: 'column', name: head as CallStringColumn, type: 'string' };
  }
  if ((CALL_INT_COLUMNS as readonly string[]).includes(head) && rest.length === 0) {
    return { kind: 'column', name: head as CallIntColumn, type: 'int' };
  }
  if ((CALL_TIME_COLUMNS as readonly string[]).includes(head) && rest.length === 0) {
    return { kind: 'column', name: head as CallTimeColumn, type: 'datetime' };
  }
  if (head === 'summary' && rest[0] === 'weave') {
    const derived = rest[1];
    if (rest.length === 2 && derived !== undefined && DERIVED_FIELDS.includes(derived)) {
      return { kind: 'derived', name: derived as DerivedCallField };
    }
    throw new InvalidFieldError(`Field ${path} is not allowed`);
  }
  if ((CALL_JSON_COLUMNS as readonly string[]).includes(head)) {
    return { kind: 'json', column: head as CallJsonColumn, path: rest };
  }
  throw new InvalidFieldError(`Field ${head} is not allowed`);
}

/**
 * Our shorthands for the feedback types the UI writes (docs/spec/calls.md §5.2): `feedback.reaction`
 * is the emoji of a `wandb.reaction.1` record, `feedback.note` the text of a `wandb.note.1` one.
 */
const FEEDBACK_SHORTHANDS: Record<string, { feedbackType: string; payload: string[] }> = {
  reaction: { feedbackType: 'wandb.reaction.1', payload: ['emoji'] },
  note: { feedbackType: 'wandb.note.1', payload: ['note'] },
};

/** `feedback.[<type>].payload.<path>`, `feedback.[<type>].runnable_ref`, `feedback.[<type>].trigger_ref` (the type may contain dots). */
function resolveFeedbackField(path: string): CallField {
  const shorthand = Object.hasOwn(FEEDBACK_SHORTHANDS, path.slice(9)) ? FEEDBACK_SHORTHANDS[path.slice(9)] : undefined;
  if (shorthand)
    return { kind: 'feedback', feedbackType: shorthand.feedbackType, target: { payload: shorthand.payload } };
  const match = /^feedback\.\[([^\]]+)\]\.(.+)$/.exec(path);
  if (!match) throw new InvalidFieldError(`Invalid feedback field ${path}`);
  const [, feedbackType = '', remainder = ''] = match;
  const [target, ...rest] = splitFieldPath(remainder);
  if (target === 'payload') return { kind: 'feedback', feedbackType, target: { payload: rest } };
  if ((target === 'runnable_ref' || target === 'trigger_ref') && rest.length === 0)
    return { kind: 'feedback', feedbackType, target };
  throw new InvalidFieldError(`Invalid feedback field ${path}`);
}
