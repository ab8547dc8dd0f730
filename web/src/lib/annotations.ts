/**
 * Weave `AnnotationSpec` objects for human review, pure: the kind of field a spec's `field_schema`
 * (a JSON Schema) asks for — a number in a range, one of some choices, free text, yes or no — a
 * reviewer's text read into a value the schema accepts, and a new spec's value as the clients
 * publish it. Annotations are `wandb.annotation.<spec name>` feedback with the spec's ref.
 */
import type { Feedback } from './call.js';
import { objectVersionRef } from './format.js';
import { isRecord } from './is-record.js';

export type SpecField =
  | { kind: 'number'; min: number | null; max: number | null; integer: boolean }
  | { kind: 'choice'; options: string[] }
  | { kind: 'text'; maxLength: number | null }
  | { kind: 'boolean' }
  | { kind: 'other' };

export interface SpecView {
  name: string;
  ref: string;
  description: string | null;
  field: SpecField;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The field a JSON Schema asks for (what the Weave UI offers: number, enum, string, boolean). */
export function specField(schema: unknown): SpecField {
  if (!isRecord(schema)) return { kind: 'other' };
  if (Array.isArray(schema.enum) && schema.enum.every((o) => typeof o === 'string'))
    return { kind: 'choice', options: schema.enum as string[] };
  if (schema.type === 'number' || schema.type === 'integer')
    return { kind: 'number', min: num(schema.minimum), max: num(schema.maximum), integer: schema.type === 'integer' };
  if (schema.type === 'string') return { kind: 'text', maxLength: num(schema.maxLength) };
  if (schema.type === 'boolean') return { kind: 'boolean' };
  return { kind: 'other' };
}

export function specView(projectId: string, obj: { object_id: string; digest: string; val: unknown }): SpecView {
  const val = isRecord(obj.val) ? obj.val : {};
  return {
    name: obj.object_id,
    ref: objectVersionRef(projectId, 'object', obj.object_id, obj.digest),
    description: typeof val.description === 'string' && val.description !== '' ? val.description : null,
    field: specField(val.field_schema),
  };
}

/** What a field's text is as a value its schema accepts, or why not; null for an empty field (nothing to save). */
export function fieldValue(field: SpecField, text: string): { value: unknown } | { error: string } | null {
  const t = text.trim();
  if (field.kind === 'text') {
    if (t === '') return null;
    if (field.maxLength != null && text.length > field.maxLength)
      return { error: `At most ${field.maxLength} characters` };
    return { value: text };
  }
  if (t === '') return null;
  if (field.kind === 'number') {
    const n = Number(t);
    if (!Number.isFinite(n)) return { error: 'Not a number' };
    if (field.integer && !Number.isInteger(n)) return { error: 'A whole number' };
    if (field.min != null && n < field.min) return { error: `At least ${field.min}` };
    if (field.max != null && n > field.max) return { error: `At most ${field.max}` };
    return { value: n };
  }
  if (field.kind === 'choice') return field.options.includes(t) ? { value: t } : { error: 'Not one of the choices' };
  if (field.kind === 'boolean') return t === 'true' || t === 'false' ? { value: t === 'true' } : { error: 'Yes or no' };
  try {
    return { value: JSON.parse(t) };
  } catch {
    return { error: 'Not valid JSON' };
  }
}

/** A value back to the field's text. */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export type AnnotationFeedback = Feedback & { annotation_ref?: string | null };

/** The newest annotation of spec `name` by user `userId` among a call's feedback. */
export function ownAnnotation(
  feedback: readonly AnnotationFeedback[],
  name: string,
  userId: string | null,
): AnnotationFeedback | undefined {
  const type = `wandb.annotation.${name}`;
  return [...feedback]
    .filter((f) => f.feedback_type === type && (userId == null || f.wb_user_id === userId))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
}

/** What a new spec is made of in the form. */
export interface SpecDraft {
  name: string;
  description: string;
  kind: 'number' | 'choice' | 'text' | 'boolean';
  min: string;
  max: string;
  /** Choices, one per line. */
  options: string;
  maxLength: string;
}

/** The JSON Schema of a draft, or why it cannot be made. */
export function draftSchema(d: SpecDraft): { schema: Record<string, unknown> } | { error: string } {
  const n = (s: string, what: string): number | null | { error: string } => {
    if (s.trim() === '') return null;
    const v = Number(s);
    return Number.isFinite(v) ? v : { error: `${what} is not a number` };
  };
  if (d.kind === 'number') {
    const min = n(d.min, 'Minimum');
    const max = n(d.max, 'Maximum');
    if (typeof min === 'object' && min) return min;
    if (typeof max === 'object' && max) return max;
    if (min != null && max != null && min > max) return { error: 'The minimum is above the maximum' };
    return {
      schema: { type: 'number', ...(min != null ? { minimum: min } : {}), ...(max != null ? { maximum: max } : {}) },
    };
  }
  if (d.kind === 'choice') {
    const options = [
      ...new Set(
        d.options
          .split('\n')
          .map((o) => o.trim())
          .filter(Boolean),
      ),
    ];
    if (options.length < 2) return { error: 'Give at least two choices, one per line' };
    return { schema: { type: 'string', enum: options } };
  }
  if (d.kind === 'text') {
    const max = n(d.maxLength, 'Maximum length');
    if (typeof max === 'object' && max) return max;
    if (max != null && (!Number.isInteger(max) || max < 1))
      return { error: 'Maximum length is a whole number above 0' };
    return { schema: { type: 'string', ...(max != null ? { maxLength: max } : {}) } };
  }
  return { schema: { type: 'boolean' } };
}

/** An `AnnotationSpec` value as the clients publish it (with `builtin_object_class: "AnnotationSpec"`). */
export function annotationSpecValue(d: SpecDraft, schema: Record<string, unknown>): Record<string, unknown> {
  return {
    _type: 'AnnotationSpec',
    _class_name: 'AnnotationSpec',
    _bases: ['BaseObject', 'BaseModel'],
    name: d.name,
    description: d.description.trim() || null,
    field_schema: schema,
    unique_among_creators: true,
    op_scope: null,
  };
}
