import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import type { CallsRequest } from '../../api/calls.js';
import { useAnnotationSpecs } from '../../api/annotations.js';
import { QUEUE_FROM_VIEW_LIMIT, useCreateQueueFromView } from '../../api/queues.js';

/** "Review these calls": a dialog that makes an annotation queue of the calls the view shows. */
export function QueueFromView({ entity, project, req }: { entity: string; project: string; req: CallsRequest | null }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState('');
  const [specRefs, setSpecRefs] = useState<string[]>([]);
  const specs = useAnnotationSpecs(`${entity}/${project}`);
  const create = useCreateQueueFromView(`${entity}/${project}`);
  const navigate = useNavigate();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!req || !name.trim()) return;
    create.mutate(
      { name: name.trim(), req, scorerRefs: specRefs },
      {
        onSuccess: ({ id }) => {
          ref.current?.close();
          void navigate({
            to: '/$entity/$project/weave/queues/$queueId',
            params: { entity, project, queueId: id },
            search: {},
          });
        },
      },
    );
  };
  return (
    <>
      <button type="button" disabled={!req} onClick={() => ref.current?.showModal()}>
        Review these calls…
      </button>
      <dialog ref={ref} className="shortcuts" aria-labelledby="queue-dialog-title">
        <h2 id="queue-dialog-title">New annotation queue</h2>
        <p className="muted small">
          The queue holds the calls this view shows, with its filters and order (the first {QUEUE_FROM_VIEW_LIMIT}).
        </p>
        <form onSubmit={submit} className="stack-form">
          <label htmlFor="queue-name">Queue name</label>
          <input id="queue-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus required />
          {(specs.data?.length ?? 0) > 0 && (
            <fieldset className="queue-specs">
              <legend>Annotation specs the reviewer fills in</legend>
              {specs.data!.map((s) => (
                <label key={s.ref}>
                  <input
                    type="checkbox"
                    checked={specRefs.includes(s.ref)}
                    onChange={(e) =>
                      setSpecRefs((prev) => (e.target.checked ? [...prev, s.ref] : prev.filter((r) => r !== s.ref)))
                    }
                  />{' '}
                  {s.name}
                </label>
              ))}
            </fieldset>
          )}
          {create.isError && (
            <p role="alert" className="error-text">
              Could not create the queue: {create.error.message}
            </p>
          )}
          <div className="dialog-actions">
            <button type="submit" className="primary" disabled={create.isPending || !name.trim()}>
              Create queue
            </button>
            <button type="button" onClick={() => ref.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
