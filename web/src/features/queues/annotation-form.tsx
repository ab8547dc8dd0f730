import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useAnnotate, type AnnotationEntry } from '../../api/annotations.js';
import type { QueueItem } from '../../api/queues.js';
import {
  fieldText,
  fieldValue,
  ownAnnotation,
  type AnnotationFeedback,
  type SpecField,
  type SpecView,
} from '../../lib/annotations.js';

/**
 * The queue's annotation specs as a form for the call under review: a number in its range, one of
 * the choices, free text or yes/no, each filled with the reviewer's earlier value. “Save
 * annotations” writes them (replacing the reviewer's earlier ones) and moves to the next item.
 */
export function AnnotationForm({
  projectId,
  queueId,
  item,
  specs,
  feedback,
  userId,
  onSaved,
}: {
  projectId: string;
  queueId: string;
  item: QueueItem;
  specs: SpecView[];
  feedback: AnnotationFeedback[];
  userId: string | null;
  onSaved: () => void;
}) {
  const previous = (s: SpecView) => ownAnnotation(feedback, s.name, userId);
  const [text, setText] = useState<Record<string, string>>(() =>
    Object.fromEntries(specs.map((s) => [s.name, fieldText(previous(s)?.payload.value)])),
  );
  const [problems, setProblems] = useState<Record<string, string>>({});
  // a field the reviewer has not touched follows the newest feedback (it may arrive after the form opened)
  const touched = useRef(new Set<string>());
  useEffect(() => {
    setText((prev) => {
      const next = { ...prev };
      for (const s of specs) if (!touched.current.has(s.name)) next[s.name] = fieldText(previous(s)?.payload.value);
      return next;
    });
  }, [feedback, specs, userId]);
  const annotate = useAnnotate(projectId, queueId);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const entries: AnnotationEntry[] = [];
    const wrong: Record<string, string> = {};
    for (const spec of specs) {
      const parsed = fieldValue(spec.field, text[spec.name] ?? '');
      if (parsed && 'error' in parsed) wrong[spec.name] = parsed.error;
      else if (parsed) entries.push({ spec, value: parsed.value, previous: previous(spec) });
    }
    if (entries.length === 0 && Object.keys(wrong).length === 0) wrong[specs[0]!.name] = 'Fill in at least one field';
    setProblems(wrong);
    if (Object.keys(wrong).length === 0) annotate.mutate({ item, entries }, { onSuccess: onSaved });
  };
  return (
    <form className="annotation-form" onSubmit={submit} aria-label="Annotations" noValidate>
      {specs.map((spec, i) => (
        <SpecInput
          key={spec.ref}
          id={`spec-${i}`}
          spec={spec}
          text={text[spec.name] ?? ''}
          problem={problems[spec.name]}
          onChange={(v) => {
            touched.current.add(spec.name);
            setText((prev) => ({ ...prev, [spec.name]: v }));
          }}
        />
      ))}
      {annotate.isError && (
        <p role="alert" className="error-text">
          Not saved: {annotate.error.message}
        </p>
      )}
      <button type="submit" className="primary" disabled={annotate.isPending}>
        Save annotations
      </button>
    </form>
  );
}

function hint(field: SpecField): string {
  if (field.kind === 'number') {
    const range =
      field.min != null && field.max != null
        ? `${field.min} to ${field.max}`
        : field.min != null
          ? `at least ${field.min}`
          : field.max != null
            ? `at most ${field.max}`
            : 'any number';
    return field.integer ? `${range}, whole` : range;
  }
  if (field.kind === 'text') return field.maxLength != null ? `text, at most ${field.maxLength} characters` : 'text';
  if (field.kind === 'other') return 'JSON';
  return '';
}

function SpecInput({
  id,
  spec,
  text,
  problem,
  onChange,
}: {
  id: string;
  spec: SpecView;
  text: string;
  problem: string | undefined;
  onChange: (text: string) => void;
}) {
  const f = spec.field;
  const described = [spec.description && `${id}-desc`, problem && `${id}-err`].filter(Boolean).join(' ') || undefined;
  const note = (
    <>
      {spec.description && (
        <span id={`${id}-desc`} className="muted small">
          {spec.description}
        </span>
      )}
      {problem && (
        <span id={`${id}-err`} className="error-text small" role="alert">
          {problem}
        </span>
      )}
    </>
  );
  if (f.kind === 'choice' || f.kind === 'boolean') {
    const options =
      f.kind === 'choice'
        ? f.options.map((o) => [o, o])
        : [
            ['true', 'Yes'],
            ['false', 'No'],
          ];
    return (
      <fieldset className="spec-field" aria-describedby={described}>
        <legend>{spec.name}</legend>
        <div className="spec-options">
          {options.map(([value, label]) => (
            <label key={value}>
              <input type="radio" name={id} value={value} checked={text === value} onChange={() => onChange(value!)} />{' '}
              {label}
            </label>
          ))}
          {text !== '' && (
            <button type="button" className="link-button" onClick={() => onChange('')}>
              Clear
            </button>
          )}
        </div>
        {note}
      </fieldset>
    );
  }
  return (
    <div className="spec-field">
      <label htmlFor={id}>
        {spec.name} <span className="muted small">({hint(f)})</span>
      </label>
      {f.kind === 'number' ? (
        <input
          id={id}
          type="number"
          step={f.integer ? 1 : 'any'}
          min={f.min ?? undefined}
          max={f.max ?? undefined}
          value={text}
          aria-invalid={problem ? true : undefined}
          aria-describedby={described}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <textarea
          id={id}
          rows={2}
          value={text}
          maxLength={f.kind === 'text' ? (f.maxLength ?? undefined) : undefined}
          aria-invalid={problem ? true : undefined}
          aria-describedby={described}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {note}
    </div>
  );
}
