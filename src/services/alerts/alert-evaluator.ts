import {
  alertMetric,
  breaches,
  isMutedAt,
  MAX_WINDOW_CALLS,
  parseAlertSpec,
  type AlertEvent,
  type WindowCall,
} from '../../domain/alerts.js';
import { uuidv7 } from '../../domain/ids.js';
import { formatMicros } from '../../domain/time.js';
import type { AlertOutcome, AlertStateRow } from '../../store/alert-types.js';
import type { TraceStore } from '../../store/types.js';
import type { CallQueryService } from '../call-query-service.js';
import { callerOf } from '../evaluations/server-eval/evaluation-jobs.js';

/** The columns a metric reads of each call in the window. */
const WINDOW_COLUMNS = ['id', 'started_at', 'ended_at', 'exception', 'summary'];

/**
 * One evaluation of one alert (docs/alerts.md): reads the window's finished calls (op scope and
 * query applied by the calls query, newest first) as the alert's publisher, computes the metric,
 * and says whether the state changes. Pure of the store otherwise: the caller records the outcome.
 */
export async function evaluateAlert(
  store: TraceStore,
  calls: CallQueryService,
  row: AlertStateRow,
  now: number,
): Promise<AlertOutcome> {
  // a deleted AlertSpec stops its alert (publishing a version starts it again)
  const live = await store.objects.findVersion(row.project_id, row.alert_id, { by: 'latest' }, { metadata_only: true });
  if (live === null || live.base_object_class !== 'AlertSpec') return { value: row.value, inactive: true };
  const spec = parseAlertSpec(JSON.parse(row.spec));
  if (typeof spec === 'string') return { value: row.value };
  const cutoff = spec.windowSeconds === null ? null : now - spec.windowSeconds * 1_000_000;
  const want = spec.windowCalls ?? MAX_WINDOW_CALLS;
  const lines = await calls.callsQueryStream(callerOf(JSON.parse(row.caller)), {
    project_id: row.project_id,
    filter: spec.opScope.length > 0 ? { op_names: spec.opScope } : null,
    query: spec.query as never,
    sort_by: [{ field: 'started_at', direction: 'desc' }],
    columns: WINDOW_COLUMNS,
    include_costs: spec.metric === 'cost',
    include_feedback: spec.metric === 'feedback',
    limit: MAX_WINDOW_CALLS,
  });
  const window: WindowCall[] = [];
  for await (const line of lines) {
    const call = JSON.parse(line) as WindowCall & { started_at: string };
    if (cutoff !== null && Date.parse(call.started_at) * 1000 < cutoff) break;
    if (call.ended_at == null) continue;
    window.push(call);
    if (window.length >= want) break;
  }
  const value = alertMetric(spec, window);
  if (value === null) return { value: null };
  const firing = breaches(spec, value);
  if (firing === (row.state === 'firing')) return { value };
  const event: AlertEvent = {
    event_id: uuidv7(Math.floor(now / 1000)),
    project_id: row.project_id,
    alert_id: row.alert_id,
    state: firing ? 'firing' : 'resolved',
    metric: spec.metric,
    value,
    comparison: spec.comparison,
    threshold: spec.threshold,
    at: formatMicros(now),
  };
  return {
    value,
    change: {
      event: {
        project_id: row.project_id,
        alert_id: row.alert_id,
        event_id: event.event_id,
        state: event.state,
        body: JSON.stringify(event),
        at: now,
      },
      // a muted alert keeps its state and history, and notifies no one until its mute ends
      deliveries: isMutedAt(row, now)
        ? []
        : spec.webhooks.map((hook, target) => ({ target, url: hook.url, format: hook.format })),
    },
  };
}

/** Why a stored spec cannot be evaluated, or null. */
export function specProblem(row: AlertStateRow): string | null {
  const spec = parseAlertSpec(JSON.parse(row.spec));
  return typeof spec === 'string' ? spec : null;
}
