import { useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useCanWrite } from '../../api/auth.js';
import { useSaveRowEdits } from '../../api/datasets.js';
import type { ObjVersion } from '../../api/objects.js';
import {
  editCount,
  editSummary,
  NO_EDITS,
  tableUpdates,
  withAdded,
  withChanged,
  withRemoved,
  type DatasetRow,
  type RowEdits,
} from '../../lib/datasets.js';
import { DatasetRows, type RowTarget } from './dataset-rows.js';
import { RowEditor } from './row-editor.js';

interface Editing {
  target: RowTarget;
  row: DatasetRow;
  columns: string[];
  like: DatasetRow;
}

/**
 * A dataset version's rows, and for a writer "Edit rows": change, add and remove rows, then save
 * them as the dataset's next version (the table changed through `/table/update`, so a 100k-row
 * dataset sends only the edited rows).
 */
export function DatasetEditor({
  entity,
  project,
  obj,
  table,
}: {
  entity: string;
  project: string;
  obj: ObjVersion;
  table: string;
}) {
  const projectId = `${entity}/${project}`;
  const canWrite = useCanWrite(entity);
  const [on, setOn] = useState(false);
  const [edits, setEdits] = useState<RowEdits>(NO_EDITS);
  const [open, setOpen] = useState<Editing | null>(null);
  const save = useSaveRowEdits(projectId);
  const navigate = useNavigate();
  const stop = () => {
    setOn(false);
    setEdits(NO_EDITS);
    save.reset();
  };
  const keep = (target: RowTarget, row: DatasetRow) => {
    setEdits((e) => (target.kind === 'added' ? withAdded(e, target.index, row) : withChanged(e, target.index, row)));
    setOpen(null);
  };
  const saveVersion = () =>
    save.mutate(
      { obj, updates: tableUpdates(edits) },
      {
        onSuccess: (saved) => {
          stop();
          void navigate({
            to: '/$entity/$project/weave/objects/$name/versions/$digest',
            params: { entity, project, name: saved.name, digest: saved.digest },
            search: {},
          });
        },
      },
    );
  return (
    <section aria-labelledby="rows-h">
      <div className="section-head">
        <h2 id="rows-h">Rows</h2>
        <span className="spacer" />
        {canWrite && !on && (
          <button type="button" onClick={() => setOn(true)}>
            Edit rows
          </button>
        )}
        {on && (
          <div className="edit-bar" role="group" aria-label="Row edits">
            <span className="muted" aria-live="polite">
              {editSummary(edits)}
            </span>
            <button
              type="button"
              className="primary"
              disabled={editCount(edits) === 0 || save.isPending}
              onClick={saveVersion}
            >
              Save as new version
            </button>
            <button type="button" onClick={stop}>
              {editCount(edits) ? 'Discard changes' : 'Stop editing'}
            </button>
          </div>
        )}
      </div>
      {save.isError && (
        <p role="alert" className="error-text">
          Could not save the rows: {save.error.message}
        </p>
      )}
      <DatasetRows
        projectId={projectId}
        digest={table}
        editing={
          on
            ? {
                edits,
                onEdit: (target, row, columns, like) => setOpen({ target, row, columns, like }),
                onRemove: (target, removed) =>
                  setEdits((e) =>
                    target.kind === 'added' ? withAdded(e, target.index, null) : withRemoved(e, target.index, removed),
                  ),
              }
            : undefined
        }
      />
      {open && (
        <RowEditor
          title={
            open.target.kind === 'stored'
              ? `Edit row ${open.target.index}`
              : open.target.index < edits.added.length
                ? `Edit new row ${open.target.index + 1}`
                : 'Add a row'
          }
          columns={open.columns}
          row={open.row}
          like={open.like}
          onSave={(row) => keep(open.target, row)}
          onClose={() => setOpen(null)}
        />
      )}
    </section>
  );
}
