import { useRef } from 'react';
import { useDeleteCalls } from '../../api/calls.js';
import { plural } from '../../lib/format.js';

/** "Delete…" for the selected calls, after a confirmation that says their child calls go too. */
export function DeleteCalls({
  projectId,
  ids,
  onDeleted,
}: {
  projectId: string;
  ids: string[];
  onDeleted: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const remove = useDeleteCalls(projectId);
  return (
    <>
      <button type="button" className="danger" onClick={() => ref.current?.showModal()}>
        Delete…
      </button>
      <dialog ref={ref} className="shortcuts" aria-labelledby="delete-calls-title">
        <h2 id="delete-calls-title">Delete {plural(ids.length, 'call')}?</h2>
        <p>The calls and every call under them are deleted for everyone in the project. This cannot be undone.</p>
        {remove.isError && (
          <p role="alert" className="error-text">
            Could not delete: {remove.error.message}
          </p>
        )}
        <div className="dialog-actions">
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() =>
              remove.mutate(ids, {
                onSuccess: () => {
                  ref.current?.close();
                  onDeleted();
                },
              })
            }
          >
            Delete {plural(ids.length, 'call')}
          </button>
          <button type="button" onClick={() => ref.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
