import type { Alert } from '../../api/alerts.js';
import { formatTime } from '../../lib/format.js';

/** An alert's state in words and an icon, never colour alone. */
export function AlertState({
  alert,
}: {
  alert: Pick<Alert, 'state' | 'muted' | 'muted_until' | 'active' | 'spec_error'>;
}) {
  if (!alert.active) return <span className="status alert-inactive">Deleted</span>;
  return (
    <span className="alert-state">
      {alert.spec_error ? (
        <span className="status alert-invalid">
          <span aria-hidden="true">!</span> Invalid spec
        </span>
      ) : alert.state === 'firing' ? (
        <span className="status status-error">
          <span aria-hidden="true">▲</span> Firing
        </span>
      ) : (
        <span className="status status-success">
          <span aria-hidden="true">✓</span> OK
        </span>
      )}
      {alert.muted && <span className="badge">Muted</span>}
      {alert.muted && alert.muted_until && <span className="small muted">until {formatTime(alert.muted_until)}</span>}
    </span>
  );
}

export const formatAlertValue = (v: number | null) =>
  v === null ? '—' : Number.isInteger(v) ? String(v) : v.toPrecision(4).replace(/\.?0+$/, '');
