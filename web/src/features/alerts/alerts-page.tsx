import { useState } from 'react';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useAlerts, useDeleteAlert, useMuteAlert } from '../../api/alerts.js';
import { useCanWrite } from '../../api/auth.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatTime } from '../../lib/format.js';
import { describeCondition, describeWindow, emptyAlertFields, fieldsOfAlert } from '../../lib/alerts.js';
import { AlertActions } from './alert-actions.js';
import { AlertForm } from './alert-form.js';
import { AlertDetail } from './alert-detail.js';
import { AlertState, formatAlertValue } from './alert-state.js';

const alertsRoute = getRouteApi('/$entity/$project/weave/alerts');

/** The project's alerts: list with states, create, edit, mute, delete; the selected one's history. */
export function AlertsPage() {
  const { entity, project } = alertsRoute.useParams();
  const { alert: selected } = alertsRoute.useSearch();
  const navigate = useNavigate();
  const projectId = `${entity}/${project}`;
  const alerts = useAlerts(projectId);
  const mute = useMuteAlert(projectId);
  const remove = useDeleteAlert(projectId);
  const [form, setForm] = useState<{ editing: string | null } | null>(null);
  const canWrite = useCanWrite(entity);
  const select = (alertId: string | undefined) =>
    void navigate({
      to: '/$entity/$project/weave/alerts',
      params: { entity, project },
      search: alertId ? { alert: alertId } : {},
    });
  const editing = form?.editing ? alerts.data?.find((a) => a.alert_id === form.editing) : undefined;
  const selectedAlert = selected ? alerts.data?.find((a) => a.alert_id === selected) : undefined;
  return (
    <main className="page alerts-page">
      <div className="page-head">
        <PageHeading>Alerts</PageHeading>
        {canWrite && (
          <button type="button" className="primary" onClick={() => setForm({ editing: null })} disabled={form !== null}>
            New alert
          </button>
        )}
      </div>
      <p className="muted small">
        A threshold on a metric of recent calls, evaluated by the server; changes go to the alert’s webhooks. Alerts are
        AlertSpec objects (docs/alerts.md), so a Weave client can publish them too.
        {!canWrite && ` You are a viewer of ${entity}: you can read its alerts and their history, not change them.`}
      </p>
      {form && (
        <AlertForm
          key={form.editing ?? '(new)'}
          projectId={projectId}
          editing={form.editing !== null}
          initial={editing ? fieldsOfAlert(editing.alert_id, editing.op_scope, editing.spec) : emptyAlertFields()}
          onDone={(alertId) => {
            setForm(null);
            if (alertId) select(alertId);
          }}
        />
      )}
      {alerts.isPending && <p className="muted">Loading alerts…</p>}
      {alerts.isError && <p role="alert">Could not load alerts: {alerts.error.message}</p>}
      {alerts.data && alerts.data.length === 0 && !form && (
        <p>
          No alerts yet.
          {canWrite && ' “New alert” makes one: a threshold on error rate, latency, cost, tokens or a score.'}
        </p>
      )}
      {alerts.data && alerts.data.length > 0 && (
        <table className="simple-table alerts-table" aria-label="Alerts">
          <thead>
            <tr>
              <th scope="col">Alert</th>
              <th scope="col">State</th>
              <th scope="col">Condition</th>
              <th scope="col">Window</th>
              <th scope="col" className="num">
                Last value
              </th>
              <th scope="col">Last evaluated (UTC)</th>
              <th scope="col">Last fired (UTC)</th>
              {canWrite && (
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {alerts.data.map((a) => (
              <tr key={a.alert_id} className={a.alert_id === selected ? 'selected' : undefined}>
                <th scope="row">
                  <Link
                    to="/$entity/$project/weave/alerts"
                    params={{ entity, project }}
                    search={{ alert: a.alert_id }}
                    aria-current={a.alert_id === selected ? 'true' : undefined}
                    data-alert-id={a.alert_id}
                  >
                    {a.alert_id}
                  </Link>
                </th>
                <td>
                  <AlertState alert={a} />
                </td>
                <td className="small">{a.spec_error ?? describeCondition(a.spec)}</td>
                <td className="small">{describeWindow(a.spec)}</td>
                <td className="num">{formatAlertValue(a.value)}</td>
                <td className="small">{formatTime(a.evaluated_at, false)}</td>
                <td className="small">{formatTime(a.last_fired_at, false)}</td>
                {canWrite && (
                  <td className="row-actions">
                    <AlertActions
                      alert={a}
                      formOpen={form !== null}
                      mute={mute}
                      remove={remove}
                      onEdit={() => setForm({ editing: a.alert_id })}
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(mute.isError || remove.isError) && (
        <p role="alert" className="error-text">
          {mute.isError ? `Could not change the mute: ${mute.error.message}` : ''}
          {remove.isError ? `Could not delete: ${remove.error.message}` : ''}
        </p>
      )}
      {selected && alerts.data && !selectedAlert && (
        <p role="alert">
          No alert {selected} in {projectId}.
        </p>
      )}
      {selectedAlert && (
        <AlertDetail
          projectId={projectId}
          alert={selectedAlert}
          onClose={() => {
            select(undefined);
            focusAlertLink(selectedAlert.alert_id);
          }}
        />
      )}
    </main>
  );
}

/** Closed details give focus back to the alert's link in the list, where the reader came from. */
function focusAlertLink(alertId: string): void {
  requestAnimationFrame(() =>
    document.querySelector<HTMLElement>(`.alerts-table a[data-alert-id="${CSS.escape(alertId)}"]`)?.focus(),
  );
}
