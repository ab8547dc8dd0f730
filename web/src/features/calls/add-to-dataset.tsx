import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useCallsByIds } from '../../api/calls.js';
import { useAddRowsToDataset } from '../../api/datasets.js';
import { useObjectsList } from '../../api/objects.js';
import { leafColumns } from '../../lib/columns.js';
import { choicesProblem, fieldChoices, rowsFromCalls, type FieldChoice } from '../../lib/datasets.js';
import { plural } from '../../lib/format.js';
import { objectNameProblem } from '../../lib/object-name.js';

/**
 * "Add to dataset": the selected calls become rows of a new dataset or of the next version of an
 * existing one. The user picks which input and output fields become columns and names them.
 */
export function AddToDataset({ entity, project, ids }: { entity: string; project: string; ids: string[] }) {
  const projectId = `${entity}/${project}`;
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setOpen(true);
          ref.current?.showModal();
        }}
      >
        Add to dataset…
      </button>
      <dialog
        ref={ref}
        className="shortcuts add-to-dataset"
        aria-labelledby="add-dataset-title"
        onClose={() => setOpen(false)}
      >
        <h2 id="add-dataset-title">Add {plural(ids.length, 'call')} to a dataset</h2>
        {open && (
          <AddForm
            entity={entity}
            project={project}
            projectId={projectId}
            ids={ids}
            close={() => ref.current?.close()}
          />
        )}
      </dialog>
    </>
  );
}

function AddForm({
  entity,
  project,
  projectId,
  ids,
  close,
}: {
  entity: string;
  project: string;
  projectId: string;
  ids: string[];
  close: () => void;
}) {
  const calls = useCallsByIds(projectId, ids);
  const objects = useObjectsList(projectId);
  const datasets = useMemo(
    () => (objects.data ?? []).filter((o) => o.leaf_object_class === 'Dataset').map((o) => o.object_id),
    [objects.data],
  );
  const [target, setTarget] = useState<'new' | 'existing'>('new');
  const [newName, setNewName] = useState('');
  const [existing, setExisting] = useState('');
  const [choices, setChoices] = useState<FieldChoice[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const add = useAddRowsToDataset(projectId);
  const navigate = useNavigate();

  useEffect(() => {
    if (calls.data && choices === null) setChoices(fieldChoices(leafColumns(calls.data)));
  }, [calls.data, choices]);
  const name = target === 'new' ? newName.trim() : existing || (datasets[0] ?? '');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!calls.data || !choices) return;
    const wrong =
      (target === 'new' ? objectNameProblem(name, 'dataset') : name ? null : 'Choose a dataset') ??
      choicesProblem(choices);
    setProblem(wrong);
    if (wrong) return;
    add.mutate(
      { name, rows: rowsFromCalls(calls.data, choices) },
      {
        onSuccess: (saved) => {
          close();
          void navigate({
            to: '/$entity/$project/weave/objects/$name/versions/$digest',
            params: { entity, project, name: saved.name, digest: saved.digest },
            search: {},
          });
        },
      },
    );
  };
  const setChoice = (i: number, patch: Partial<FieldChoice>) =>
    setChoices((prev) => prev && prev.map((c, j) => (j === i ? { ...c, ...patch } : c)));

  if (calls.isError) return <p role="alert">Could not load the calls: {calls.error.message}</p>;
  if (!choices) return <p className="muted">Loading the calls…</p>;
  return (
    <form onSubmit={submit} className="stack-form" noValidate>
      <fieldset>
        <legend>Dataset</legend>
        <label>
          <input type="radio" name="target" checked={target === 'new'} onChange={() => setTarget('new')} /> New dataset
        </label>
        <label>
          <input
            type="radio"
            name="target"
            checked={target === 'existing'}
            disabled={datasets.length === 0}
            onChange={() => setTarget('existing')}
          />{' '}
          New version of an existing dataset (rows appended)
        </label>
        {target === 'new' ? (
          <>
            <label htmlFor="new-dataset-name">Dataset name</label>
            <input
              id="new-dataset-name"
              value={newName}
              spellCheck={false}
              onChange={(e) => setNewName(e.target.value)}
              autoFocus
            />
          </>
        ) : (
          <>
            <label htmlFor="existing-dataset">Existing dataset</label>
            <select id="existing-dataset" value={name} onChange={(e) => setExisting(e.target.value)}>
              {datasets.map((d) => (
                <option key={d}>{d}</option>
              ))}
            </select>
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>Columns</legend>
        {choices.length === 0 && <p className="muted">These calls have no inputs or output to take.</p>}
        <table className="simple-table field-choices" aria-label="Fields to columns">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Column</th>
            </tr>
          </thead>
          <tbody>
            {choices.map((c, i) => (
              <tr key={c.path}>
                <td>
                  <label className="mono small">
                    <input type="checkbox" checked={c.on} onChange={(e) => setChoice(i, { on: e.target.checked })} />{' '}
                    {c.path}
                  </label>
                </td>
                <td>
                  <input
                    aria-label={`Column for ${c.path}`}
                    value={c.column}
                    disabled={!c.on}
                    spellCheck={false}
                    onChange={(e) => setChoice(i, { column: e.target.value })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </fieldset>
      {(problem ?? add.error) && (
        <p role="alert" className="error-text">
          {problem ?? `Could not save the dataset: ${add.error?.message}`}
        </p>
      )}
      <div className="dialog-actions">
        <button type="submit" className="primary" disabled={add.isPending}>
          Add {plural(calls.data?.length ?? 0, 'row')}
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
