import { useState } from 'react';
import type { Alert, useDeleteAlert, useMuteAlert } from '../../api/alerts.js';

/** How long a mute lasts: hours, or null for until unmuted. */
const MUTE_CHOICES: ReadonlyArray<[label: string, hours: number | null]> = [
  ['1 hour', 1],
  ['1 day', 24],
  ['Until unmuted', null],
];

/** An alert row's write actions: edit, mute or unmute, delete with a confirmation. Shown to writers only. */
export function AlertActions({
  alert,
  formOpen,
  mute,
  remove,
  onEdit,
}: {
  alert: Pick<Alert, 'alert_id' | 'muted' | 'active'>;
  formOpen: boolean;
  mute: ReturnType<typeof useMuteAlert>;
  remove: ReturnType<typeof useDeleteAlert>;
  onEdit: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [choosingMute, setChoosingMute] = useState(false);
  const id = alert.alert_id;
  const muteFor = (hours: number | null) => {
    setChoosingMute(false);
    const until = hours === null ? undefined : new Date(Date.now() + hours * 3600_000).toISOString();
    mute.mutate({ alertId: id, muted: true, until });
  };
  return (
    <>
      <button type="button" aria-label={`Edit ${id}`} onClick={onEdit} disabled={formOpen}>
        Edit
      </button>
      {alert.muted ? (
        <button
          type="button"
          aria-label={`Unmute ${id}`}
          disabled={mute.isPending}
          onClick={() => mute.mutate({ alertId: id, muted: false })}
        >
          Unmute
        </button>
      ) : choosingMute ? (
        <span role="group" aria-label={`Mute ${id} for`}>
          {MUTE_CHOICES.map(([label, hours]) => (
            <button key={label} type="button" disabled={mute.isPending} onClick={() => muteFor(hours)}>
              {label}
            </button>
          ))}
          <button type="button" onClick={() => setChoosingMute(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" aria-label={`Mute ${id}`} onClick={() => setChoosingMute(true)}>
          Mute…
        </button>
      )}
      {alert.active &&
        (confirming ? (
          <>
            <button
              type="button"
              className="danger"
              onClick={() => remove.mutate(id, { onSettled: () => setConfirming(false) })}
            >
              Confirm delete {id}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" aria-label={`Delete ${id}`} onClick={() => setConfirming(true)}>
            Delete
          </button>
        ))}
    </>
  );
}
