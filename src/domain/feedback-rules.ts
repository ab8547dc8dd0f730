import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import { canonicalJson } from './canonical-json.js';
import { reactionNames } from './emoji.js';
import { REF_PREFIX } from './refs.js';

/**
 * The rules of docs/spec/objects.md §7.2 that need nothing but the request: reserved feedback types,
 * which ref fields each type needs or forbids, ref kinds, and the payload size limit. Checking
 * an annotation against its AnnotationSpec needs the object store and lives in the service.
 */

/** `FeedbackCreateReq` fields these rules read. */
export interface FeedbackInput {
  project_id: string;
  feedback_type: string;
  payload: Record<string, unknown>;
  annotation_ref?: string | null;
  runnable_ref?: string | null;
  call_ref?: string | null;
  trigger_ref?: string | null;
  scorer_tags?: string[] | null;
  scorer_tag_reasons?: Record<string, string> | null;
  scorer_tag_confidences?: Record<string, number> | null;
  scorer_ratings?: Record<string, number> | null;
  scorer_rating_reasons?: Record<string, string> | null;
  scorer_rating_confidences?: Record<string, number> | null;
}

export const MAX_PAYLOAD_CHARS = 1_048_576;
const MAX_NOTE_CHARS = 1024;
const REF_FIELDS = ['annotation_ref', 'runnable_ref', 'call_ref', 'trigger_ref'] as const;
type RefField = (typeof REF_FIELDS)[number];

export interface ParsedRef {
  projectId: string;
  kind: string;
  name: string;
  digest: string;
}

/** `weave:///<entity>/<project>/<kind>/<name>[:<digest>][/…]`; null when not of that shape. */
export function parseRef(ref: string): ParsedRef | null {
  if (!ref.startsWith(REF_PREFIX)) return null;
  const parts = ref.slice(REF_PREFIX.length).split('/');
  if (parts.length < 4 || parts.slice(0, 4).some((part) => part === '')) return null;
  const [entity, project, kind = '', nameAndDigest = ''] = parts;
  const colon = nameAndDigest.indexOf(':');
  const name = colon < 0 ? nameAndDigest : nameAndDigest.slice(0, colon);
  const digest = colon < 0 ? '' : nameAndDigest.slice(colon + 1);
  if (name === '') return null;
  return { projectId: `${entity}/${project}`, kind, name, digest };
}

/** The kinds each ref field accepts (§7.2 "every supplied ref field must parse as the stated ref kind"). */
const REF_KINDS: Record<RefField, readonly string[]> = {
  annotation_ref: ['object'],
  runnable_ref: ['op', 'object'],
  call_ref: ['call'],
  trigger_ref: ['object'],
};

function checkRefKinds(req: FeedbackInput): void {
  for (const field of REF_FIELDS) {
    const value = req[field];
    if (value == null) continue;
    const parsed = parseRef(value);
    const kinds = REF_KINDS[field];
    if (!parsed || !kinds.includes(parsed.kind) || (parsed.kind !== 'call' && parsed.digest === '')) {
      throw new ObjectInvalidRequestError(`${field} must be a valid ${kinds.join(' or ')} ref`);
    }
  }
}

const hasScorerData = (req: FeedbackInput): boolean =>
  (req.scorer_tags?.length ?? 0) > 0 ||
  (
    [
      'scorer_tag_reasons',
      'scorer_tag_confidences',
      'scorer_ratings',
      'scorer_rating_reasons',
      'scorer_rating_confidences',
    ] as const
  ).some((field) => Object.keys(req[field] ?? {}).length > 0);

function forbid(req: FeedbackInput, fields: readonly RefField[], type: string): void {
  for (const field of fields)
    if (req[field] != null) throw new ObjectInvalidRequestError(`${field} is not allowed for feedback type ${type}`);
}

function requireRefs(req: FeedbackInput, fields: readonly RefField[], type: string): void {
  for (const field of fields)
    if (req[field] == null) throw new ObjectInvalidRequestError(`${field} is required for feedback type ${type}`);
}

/** `<prefix><name>` exactly, returning the name. */
function suffixName(type: string, prefix: string): string {
  const name = type.slice(prefix.length);
  if (!type.startsWith(prefix) || name === '') {
    throw new ObjectInvalidRequestError(`Invalid feedback type ${type}: expected ${prefix}<name>`);
  }
  return name;
}

function checkReaction(payload: Record<string, unknown>): Record<string, unknown> {
  const emoji = payload.emoji;
  if (typeof emoji !== 'string') throw new ObjectInvalidRequestError('Reaction payload must have a string emoji');
  const names = reactionNames(emoji);
  if (!names) throw new ObjectInvalidRequestError('Value error, Reaction emoji must be exactly one emoji');
  return { ...payload, ...names };
}

function checkNote(payload: Record<string, unknown>): void {
  const note = payload.note;
  if (typeof note !== 'string') throw new ObjectInvalidRequestError('Note payload must have a string note');
  const length = [...note].length;
  if (length < 1 || length > MAX_NOTE_CHARS)
    throw new ObjectInvalidRequestError(`Note must be between 1 and ${MAX_NOTE_CHARS} characters long`);
}

function checkRunnable(req: FeedbackInput, type: string): void {
  const name = suffixName(type, 'wandb.runnable.');
  requireRefs(req, ['runnable_ref'], type);
  const ref = parseRef(req.runnable_ref!)!;
  if (ref.name !== name)
    throw new ObjectInvalidRequestError(`runnable_ref name ${ref.name} does not match feedback type ${type}`);
  if (ref.kind === 'op') requireRefs(req, ['call_ref'], type);
  if (!('output' in req.payload)) throw new ObjectInvalidRequestError('Runnable feedback payload must have an output');
}

/**
 * Checks §7.2 in order and returns the processed payload (reactions gain their names) and, for
 * annotations, the spec ref the caller must still resolve. Any violation → 400.
 */
export function checkFeedback(req: FeedbackInput): {
  payload: Record<string, unknown>;
  annotationSpec: ParsedRef | null;
} {
  const type = req.feedback_type;
  checkRefKinds(req);
  let payload = req.payload;
  let annotationSpec: ParsedRef | null = null;
  const scorerAllowed =
    type.startsWith('wandb.runnable') || type === 'wandb.agent_monitor' || type === 'wandb.agent_user_feedback';
  if (!scorerAllowed && hasScorerData(req))
    throw new ObjectInvalidRequestError(`scorer fields are not allowed for feedback type ${type}`);
  if (type === 'wandb.reaction.1') {
    forbid(req, REF_FIELDS, type);
    payload = checkReaction(payload);
  } else if (type === 'wandb.note.1') {
    forbid(req, REF_FIELDS, type);
    checkNote(payload);
  } else if (type.startsWith('wandb.annotation')) {
    const name = suffixName(type, 'wandb.annotation.');
    requireRefs(req, ['annotation_ref'], type);
    annotationSpec = parseRef(req.annotation_ref!)!;
    if (annotationSpec.name !== name)
      throw new ObjectInvalidRequestError(
        `annotation_ref name ${annotationSpec.name} does not match feedback type ${type}`,
      );
    if (annotationSpec.projectId !== req.project_id)
      throw new ObjectInvalidRequestError('annotation_ref must be in the same project');
    if (!('value' in payload)) throw new ObjectInvalidRequestError('Annotation payload must have a value');
  } else if (type.startsWith('wandb.runnable')) {
    checkRunnable(req, type);
  } else if (type === 'wandb.agent_monitor') {
    requireRefs(req, ['runnable_ref', 'call_ref', 'trigger_ref'], type);
  } else if (type === 'wandb.agent_user_feedback') {
    if ((req.scorer_tags?.length ?? 0) === 0)
      throw new ObjectInvalidRequestError('scorer_tags must not be empty for feedback type wandb.agent_user_feedback');
    forbid(req, REF_FIELDS, type);
  } else {
    forbid(req, REF_FIELDS, type);
  }
  if (canonicalJson(payload).length > MAX_PAYLOAD_CHARS)
    throw new ObjectInvalidRequestError('Feedback payload too large');
  return { payload, annotationSpec };
}
