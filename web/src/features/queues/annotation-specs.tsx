import { useState, type FormEvent } from 'react';
import { useAnnotationSpecs, useCreateSpec } from '../../api/annotations.js';
import { useCanWrite } from '../../api/auth.js';
import { draftSchema, type SpecDraft, type SpecField } from '../../lib/annotations.js';
import { objectNameProblem } from '../../lib/object-name.js';

const EMPTY: SpecDraft = { name: '', description: '', kind: 'number', min: '', max: '', options: '', maxLength: '' };

function describe(f: SpecField): string {
  if (f.kind === 'number')
    return `Number${f.min != null || f.max != null ? ` from ${f.min ?? '−∞'} to ${f.max ?? '∞'}` : ''}`;
  if (f.kind === 'choice') return `One of: ${f.options.join(', ')}`;
  if (f.kind === 'text') return `Text${f.maxLength != null ? `, at most ${f.maxLength} characters` : ''}`;
  if (f.kind === 'boolean') return 'Yes or no';
  return 'JSON';
}

/** The project's `AnnotationSpec` objects, and a form that publishes a new one (writers only). */
export function AnnotationSpecs({ entity, project }: { entity: string; project: string }) {
  const projectId = `${entity}/${project}`;
  const specs = useAnnotationSpecs(projectId);
  const canWrite = useCanWrite(entity);
  const [draft, setDraft] = useState<SpecDraft | null>(null);
  return (
    <section aria-labelledby="specs-h">
      <div className="section-head">
        <h2 id="specs-h">Annotation specs</h2>
        {canWrite && !draft && (
          <button type="button" onClick={() => setDraft(EMPTY)}>
            New spec
          </button>
        )}
      </div>
      <p className="muted small">
        What a reviewer fills in for each call of a queue: a number in a range, one of some choices, free text or
        yes/no. They are AnnotationSpec objects, so <code>weave.AnnotationSpec(…)</code> publishes them too.
      </p>
      {draft && <SpecForm projectId={projectId} draft={draft} setDraft={setDraft} />}
      {specs.isError && <p role="alert">Could not load annotation specs: {specs.error.message}</p>}
      {specs.data?.length === 0 && <p>No annotation specs yet.</p>}
      {specs.data && specs.data.length > 0 && (
        <table className="simple-table" aria-label="Annotation specs">
          <thead>
            <tr>
              <th scope="col">Spec</th>
              <th scope="col">Field</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {specs.data.map((s) => (
              <tr key={s.ref}>
                <th scope="row">{s.name}</th>
                <td>{describe(s.field)}</td>
                <td>{s.description ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function SpecForm({
  projectId,
  draft,
  setDraft,
}: {
  projectId: string;
  draft: SpecDraft;
  setDraft: (d: SpecDraft | null) => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateSpec(projectId);
  const set = (patch: Partial<SpecDraft>) => setDraft({ ...draft, ...patch });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const nameProblem = objectNameProblem(draft.name.trim(), 'spec');
    const built = draftSchema(draft);
    const wrong = nameProblem ?? ('error' in built ? built.error : null);
    setProblem(wrong);
    if (wrong || 'error' in built) return;
    create.mutate(
      { draft: { ...draft, name: draft.name.trim() }, schema: built.schema },
      { onSuccess: () => setDraft(null) },
    );
  };
  return (
    <form className="spec-form stack-form" onSubmit={submit} aria-label="New annotation spec" noValidate>
      <label htmlFor="spec-name">Name</label>
      <input id="spec-name" value={draft.name} spellCheck={false} onChange={(e) => set({ name: e.target.value })} />
      <label htmlFor="spec-description">Description (shown to the reviewer)</label>
      <input id="spec-description" value={draft.description} onChange={(e) => set({ description: e.target.value })} />
      <label htmlFor="spec-kind">Field</label>
      <select id="spec-kind" value={draft.kind} onChange={(e) => set({ kind: e.target.value as SpecDraft['kind'] })}>
        <option value="number">Number</option>
        <option value="choice">One of some choices</option>
        <option value="text">Free text</option>
        <option value="boolean">Yes or no</option>
      </select>
      {draft.kind === 'number' && (
        <div className="spec-range">
          <label>
            Minimum <input type="number" step="any" value={draft.min} onChange={(e) => set({ min: e.target.value })} />
          </label>
          <label>
            Maximum <input type="number" step="any" value={draft.max} onChange={(e) => set({ max: e.target.value })} />
          </label>
        </div>
      )}
      {draft.kind === 'choice' && (
        <>
          <label htmlFor="spec-options">Choices, one per line</label>
          <textarea
            id="spec-options"
            rows={4}
            value={draft.options}
            onChange={(e) => set({ options: e.target.value })}
          />
        </>
      )}
      {draft.kind === 'text' && (
        <>
          <label htmlFor="spec-max-length">Maximum length (characters, optional)</label>
          <input
            id="spec-max-length"
            type="number"
            min={1}
            value={draft.maxLength}
            onChange={(e) => set({ maxLength: e.target.value })}
          />
        </>
      )}
      {(problem ?? create.error) && (
        <p role="alert" className="error-text">
          {problem ?? `Could not save the spec: ${create.error?.message}`}
        </p>
      )}
      <div className="dialog-actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Save spec
        </button>
        <button type="button" onClick={() => setDraft(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
