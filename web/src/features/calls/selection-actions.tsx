import { useNavigate } from '@tanstack/react-router';
import { useCanWrite } from '../../api/auth.js';
import { plural } from '../../lib/format.js';
import { AddToDataset } from './add-to-dataset.js';
import { DeleteCalls } from './delete-calls.js';

/** What a user does with the calls picked in the traces table: compare, add to a dataset, delete. */
export function SelectionActions({
  entity,
  project,
  ids,
  onClear,
  onDeleted,
}: {
  entity: string;
  project: string;
  ids: string[];
  onClear: () => void;
  onDeleted: (ids: string[]) => void;
}) {
  const navigate = useNavigate();
  const canWrite = useCanWrite(entity);
  return (
    <div className="selection-box" role="group" aria-label="Selected calls">
      <span className="muted">{plural(ids.length, 'call')} selected</span>
      <button
        type="button"
        className="primary"
        disabled={ids.length < 2}
        onClick={() =>
          void navigate({
            to: '/$entity/$project/r/compare',
            params: { entity, project },
            search: { ids: ids.join(',') },
          })
        }
      >
        Compare
      </button>
      {canWrite && <AddToDataset entity={entity} project={project} ids={ids} />}
      {canWrite && <DeleteCalls projectId={`${entity}/${project}`} ids={ids} onDeleted={() => onDeleted(ids)} />}
      <button type="button" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
