import { useEffect, useRef } from 'react';
import { useAlertHistory, type Alert } from '../../api/alerts.js';
import { formatTime } from '../../lib/format.js';
import { describeCondition, describeWindow, opNameOfRef } from '../../lib/alerts.js';
import { AlertState, formatAlertValue } from './alert-state.js';

/** One alert: its spec, and its firing/resolved history with each notification's delivery. */
export function AlertDetail({ projectId, alert, onClose }: { projectId: string; alert: Alert; onClose: () => void }) {
  const history = useAlertHistory(projectId, alert.alert_id);
  const heading = useRef<HTMLHeadingElement>(null);
  // opened (from the list, after a save, or from a link): focus moves to it
  useEffect(() => heading.current?.focus({ preventScroll: false }), [alert.alert_id]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.key === 'Escape' && !(t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const webhooks = Array.isArray(alert.spec.webhooks)
    ? (alert.spec.webhooks as { url?: unknown; format?: unknown }[])
    : [];
  const minCalls = typeof alert.spec.min_calls === 'number' ? alert.spec.min_calls : 1;
  return (
    <section className="alert-detail" aria-labelledby="alert-detail-h">
      <div className="page-head">
        <h2 id="alert-detail-h" ref={heading} tabIndex={-1}>
          Alert {alert.alert_id}
        </h2>
        <AlertState alert={alert} />
        <span className="spacer" />
        <button type="button" onClick={onClose} aria-label="Close alert details">
          Close
        </button>
      </div>
      <dl className="alert-facts">
        <dt>Condition</dt>
        <dd>{describeCondition(alert.spec)}</dd>
        <dt>Window</dt>
        <dd>
          {describeWindow(alert.spec)}, at least {minCalls} call{minCalls === 1 ? '' : 's'}
        </dd>
        <dt>Ops</dt>
        <dd className="mono">{alert.op_scope.length ? alert.op_scope.map(opNameOfRef).join(', ') : 'every op'}</dd>
        {alert.spec.query !== undefined && alert.spec.query !== null && (
          <>
            <dt>Query filter</dt>
            <dd className="mono">{JSON.stringify(alert.spec.query)}</dd>
          </>
        )}
        <dt>Webhooks</dt>
        <dd>
          {webhooks.length === 0
            ? 'none'
            : webhooks.map((w, i) => (
                <div key={i} className="mono small">
                  {String(w.url)} ({w.format === 'slack' ? 'Slack' : 'generic JSON'})
                </div>
              ))}
        </dd>
        <dt>Last value</dt>
        <dd>{formatAlertValue(alert.value)}</dd>
        <dt>State since</dt>
        <dd>{formatTime(alert.changed_at)}</dd>
        <dt>Last evaluated</dt>
        <dd>{formatTime(alert.evaluated_at)}</dd>
        {alert.spec_error && (
          <>
            <dt>Spec problem</dt>
            <dd className="error-text">{alert.spec_error}</dd>
          </>
        )}
      </dl>
      <h3 id="alert-history-h">History</h3>
      {history.isPending && <p className="muted">Loading history…</p>}
      {history.isError && <p role="alert">Could not load the history: {history.error.message}</p>}
      {history.data && history.data.events.length === 0 && <p className="muted">No state changes yet.</p>}
      {history.data && history.data.events.length > 0 && (
        <table className="simple-table" aria-labelledby="alert-history-h">
          <thead>
            <tr>
              <th scope="col">Change</th>
              <th scope="col">At (UTC)</th>
              <th scope="col" className="num">
                Value
              </th>
              <th scope="col">Notifications</th>
            </tr>
          </thead>
          <tbody>
            {history.data.events.map((e) => (
              <tr key={e.event_id}>
                <th scope="row">
                  {e.state === 'firing' ? (
                    <span className="status status-error">
                      <span aria-hidden="true">▲</span> Fired
                    </span>
                  ) : (
                    <span className="status status-success">
                      <span aria-hidden="true">✓</span> Resolved
                    </span>
                  )}
                </th>
                <td className="small">{formatTime(e.at, false)}</td>
                <td className="num">{typeof e.event.value === 'number' ? formatAlertValue(e.event.value) : '—'}</td>
                <td>
                  {e.deliveries.length === 0 ? (
                    <span className="muted small">none (muted or no webhook)</span>
                  ) : (
                    <ul className="deliveries" aria-label={`Notifications of the ${e.state} change at ${e.at}`}>
                      {e.deliveries.map((d) => (
                        <li key={d.target} className="small">
                          <span className={`delivery delivery-${d.status}`}>{d.status}</span> after {d.attempts} attempt
                          {d.attempts === 1 ? '' : 's'} · <span className="mono">{d.url}</span> (
                          {d.format === 'slack' ? 'Slack' : 'JSON'})
                          {d.sent_at && <> · sent {formatTime(d.sent_at, false)}</>}
                          {d.last_error && <> · last error: {d.last_error}</>}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
