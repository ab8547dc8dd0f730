import { useState, type FormEvent } from 'react';
import { useSaveAlert } from '../../api/alerts.js';
import { useOpNames } from '../../api/objects.js';
import {
  alertSpecOfFields,
  COMPARISONS,
  METRICS,
  type AlertFields,
  type AlertMetric,
  type AlertComparison,
} from '../../lib/alerts.js';

/**
 * Create or edit an alert: publishes an AlertSpec object version (docs/alerts.md). Editing keeps
 * the alert's state, mute and history; the name is the object id and cannot change.
 */
export function AlertForm({
  projectId,
  initial,
  editing,
  onDone,
}: {
  projectId: string;
  initial: AlertFields;
  editing: boolean;
  onDone: (alertId: string | null) => void;
}) {
  const [f, setF] = useState<AlertFields>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSaveAlert(projectId);
  const ops = useOpNames(projectId);
  const set = <K extends keyof AlertFields>(key: K, value: AlertFields[K]) => setF((old) => ({ ...old, [key]: value }));
  const setHook = (i: number, patch: Partial<AlertFields['webhooks'][number]>) =>
    set(
      'webhooks',
      f.webhooks.map((w, j) => (j === i ? { ...w, ...patch } : w)),
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const val = alertSpecOfFields(projectId, f);
    if (typeof val === 'string') {
      setProblem(val);
      return;
    }
    setProblem(null);
    const alertId = f.name.trim();
    save.mutate({ alertId, val }, { onSuccess: () => onDone(alertId) });
  };
  const title = editing ? `Edit alert ${initial.name}` : 'New alert';
  return (
    <section className="alert-form" aria-labelledby="alert-form-h">
      <h2 id="alert-form-h">{title}</h2>
      <form onSubmit={submit} aria-labelledby="alert-form-h" noValidate>
        <div className="form-grid">
          <label htmlFor="alert-name">Name</label>
          <input
            id="alert-name"
            value={f.name}
            onChange={(e) => set('name', e.target.value)}
            disabled={editing}
            required
            autoFocus={!editing}
            aria-describedby="alert-name-hint"
          />
          <span id="alert-name-hint" className="muted small">
            The AlertSpec object id: letters, digits, “.”, “_”, “-”.
          </span>

          <label htmlFor="alert-metric">Metric</label>
          <select id="alert-metric" value={f.metric} onChange={(e) => set('metric', e.target.value as AlertMetric)}>
            {METRICS.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
          <span />

          {f.metric === 'latency_ms' && (
            <>
              <label htmlFor="alert-percentile">Percentile</label>
              <input
                id="alert-percentile"
                inputMode="decimal"
                value={f.percentile}
                onChange={(e) => set('percentile', e.target.value)}
              />
              <span className="muted small">0–100; 95 is p95.</span>
            </>
          )}
          {(f.metric === 'cost' || f.metric === 'tokens') && (
            <>
              <label htmlFor="alert-aggregate">Aggregate</label>
              <select
                id="alert-aggregate"
                value={f.aggregate}
                onChange={(e) => set('aggregate', e.target.value === 'mean' ? 'mean' : 'sum')}
              >
                <option value="sum">Sum over the window</option>
                <option value="mean">Mean per call</option>
              </select>
              <span />
            </>
          )}
          {f.metric === 'feedback' && (
            <>
              <label htmlFor="alert-feedback-type">Feedback type</label>
              <input
                id="alert-feedback-type"
                value={f.feedbackType}
                onChange={(e) => set('feedbackType', e.target.value)}
                placeholder="wandb.runnable.my_scorer"
              />
              <span className="muted small">
                A monitor’s scores are feedback of type wandb.runnable.&lt;scorer&gt;.
              </span>
              <label htmlFor="alert-feedback-path">Score field</label>
              <input
                id="alert-feedback-path"
                value={f.feedbackPath}
                onChange={(e) => set('feedbackPath', e.target.value)}
                placeholder="output.score"
              />
              <span className="muted small">The payload field averaged.</span>
            </>
          )}

          <label htmlFor="alert-comparison">Fires when</label>
          <span className="inline-form">
            <select
              id="alert-comparison"
              aria-label="Comparison"
              value={f.comparison}
              onChange={(e) => set('comparison', e.target.value as AlertComparison)}
            >
              {COMPARISONS.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
            <input
              id="alert-threshold"
              aria-label="Threshold"
              inputMode="decimal"
              value={f.threshold}
              onChange={(e) => set('threshold', e.target.value)}
              required
            />
          </span>
          <span className="muted small">The metric compared with the threshold (error rate: 0–1).</span>

          <label htmlFor="alert-window-kind">Window</label>
          <span className="inline-form">
            <select
              id="alert-window-kind"
              aria-label="Window kind"
              value={f.windowKind}
              onChange={(e) => set('windowKind', e.target.value === 'seconds' ? 'seconds' : 'calls')}
            >
              <option value="calls">Last N calls</option>
              <option value="seconds">Last T seconds</option>
            </select>
            <input
              id="alert-window-size"
              aria-label={f.windowKind === 'calls' ? 'Number of calls' : 'Seconds'}
              inputMode="numeric"
              value={f.windowSize}
              onChange={(e) => set('windowSize', e.target.value)}
            />
          </span>
          <span />

          <label htmlFor="alert-min-calls">Minimum calls</label>
          <input
            id="alert-min-calls"
            inputMode="numeric"
            value={f.minCalls}
            onChange={(e) => set('minCalls', e.target.value)}
          />
          <span className="muted small">Fewer calls (or scores) in the window leave the state as it is.</span>

          <label htmlFor="alert-ops">Ops</label>
          <input
            id="alert-ops"
            value={f.ops}
            onChange={(e) => set('ops', e.target.value)}
            list="alert-op-names"
            placeholder="every op"
          />
          <span className="muted small">Op names, comma separated; empty watches every op.</span>
          <datalist id="alert-op-names">
            {(ops.data ?? []).map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>

          <label htmlFor="alert-query">Query filter</label>
          <textarea
            id="alert-query"
            className="mono"
            rows={2}
            value={f.query}
            onChange={(e) => set('query', e.target.value)}
            placeholder='{"$expr": {"$eq": [{"$getField": "op_name"}, {"$literal": "chat"}]}}'
          />
          <span className="muted small">Optional: a calls query the calls must match too.</span>
        </div>

        <fieldset className="webhooks">
          <legend>Webhooks</legend>
          {f.webhooks.length === 0 && <p className="muted small">No webhook: changes are recorded, no one is told.</p>}
          {f.webhooks.map((w, i) => (
            <div className="inline-form" key={i}>
              <label htmlFor={`alert-hook-url-${i}`}>URL {i + 1}</label>
              <input
                id={`alert-hook-url-${i}`}
                className="hook-url"
                value={w.url}
                onChange={(e) => setHook(i, { url: e.target.value })}
                placeholder="https://hooks.slack.com/services/…"
              />
              <label htmlFor={`alert-hook-format-${i}`}>Format {i + 1}</label>
              <select
                id={`alert-hook-format-${i}`}
                value={w.format}
                onChange={(e) => setHook(i, { format: e.target.value === 'slack' ? 'slack' : 'json' })}
              >
                <option value="json">Generic JSON</option>
                <option value="slack">Slack</option>
              </select>
              <button
                type="button"
                aria-label={`Remove webhook ${i + 1}`}
                onClick={() =>
                  set(
                    'webhooks',
                    f.webhooks.filter((_, j) => j !== i),
                  )
                }
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" onClick={() => set('webhooks', [...f.webhooks, { url: '', format: 'json' }])}>
            Add webhook
          </button>
        </fieldset>

        {(problem || save.isError) && (
          <p role="alert" className="error-text">
            {problem ?? `Could not save the alert: ${save.error?.message ?? ''}`}
          </p>
        )}
        <div className="dialog-actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {editing ? 'Save alert' : 'Create alert'}
          </button>
          <button type="button" onClick={() => onDone(null)}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
