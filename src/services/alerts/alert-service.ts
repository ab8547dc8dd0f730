import { randomBytes } from 'node:crypto';
import type { AlertSettings } from '../../config/config.js';
import { isMutedAt, webhookBody, type AlertEvent, type WebhookFormat } from '../../domain/alerts.js';
import { formatMicros, nowMicros, parseIsoMicros } from '../../domain/time.js';
import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import type { AlertDeliveryRow, AlertStateRow } from '../../store/alert-types.js';
import type { TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import type { CallQueryService } from '../call-query-service.js';
import { storedCaller } from '../evaluations/server-eval/evaluation-jobs.js';
import type { ProjectAccess } from '../project-access.js';
import type { BackgroundLog } from '../../domain/log.js';
import { evaluateAlert, specProblem } from './alert-evaluator.js';

/** Evaluations and sends one poll does at most (the next poll takes the rest). */
const PER_POLL = 100;
/** Retries wait at most this long. */
const MAX_RETRY_MICROS = 300_000_000;

/** What this node did (docs/alerts.md "Counters"); background errors are logged and counted here. */
export interface AlertCounters {
  evaluations: number;
  fired: number;
  resolved: number;
  sent: number;
  failed_attempts: number;
  errors: number;
}

/**
 * Alerts (docs/alerts.md): a published `AlertSpec` object is followed in `alert_states`; a poll on
 * every node leases due alerts one at a time, evaluates them and records a state change with its
 * event and outbox rows in one transaction (checked against the lease, so two nodes never both
 * fire); the same poll leases due notifications and posts them, with retries and the idempotency
 * key `<event_id>:<webhook index>`.
 */
export class AlertService {
  readonly owner = `alerts-${randomBytes(6).toString('hex')}`;
  readonly counters: AlertCounters = { evaluations: 0, fired: 0, resolved: 0, sent: 0, failed_attempts: 0, errors: 0 };
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;
  #log: BackgroundLog | null = null;
  readonly #stopping = new AbortController();

  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly calls: CallQueryService,
    private readonly settings: AlertSettings,
  ) {}

  /** An object version was published: an AlertSpec is followed (its state and history stay). */
  async published(caller: Caller, projectId: string, objectId: string, baseClass: string | null, val: unknown) {
    if (baseClass !== 'AlertSpec') return;
    await this.store.alerts.upsert({
      projectId,
      alertId: objectId,
      spec: JSON.stringify(val ?? null),
      caller: JSON.stringify(storedCaller(caller)),
      now: nowMicros(),
    });
  }

  start(log: BackgroundLog): void {
    this.#log = log;
    const tick = (): void => {
      this.#polling = this.poll().finally(() => {
        this.#polling = null;
        if (!this.#stopping.signal.aborted) this.#timer = setTimeout(tick, this.settings.pollMs);
      });
    };
    this.#timer = setTimeout(tick, this.settings.pollMs);
  }

  async stop(): Promise<void> {
    this.#stopping.abort(new Error('node shutting down'));
    if (this.#timer) clearTimeout(this.#timer);
    await this.#polling;
  }

  /** One poll: due evaluations, then due notifications. Errors are logged and counted, never thrown. */
  async poll(): Promise<void> {
    try {
      for (let i = 0; i < PER_POLL && !this.#stopping.signal.aborted; i += 1) if (!(await this.#evaluateOne())) break;
      for (let i = 0; i < PER_POLL && !this.#stopping.signal.aborted; i += 1) if (!(await this.#sendOne())) break;
    } catch (error) {
      this.counters.errors += 1;
      this.#log?.error({ err: error }, 'alerts: poll failed');
    }
  }

  async #evaluateOne(): Promise<boolean> {
    const now = nowMicros();
    const lease = this.settings.leaseSeconds * 1_000_000;
    const due = now - this.settings.intervalSeconds * 1_000_000;
    const row = await this.store.alerts.claimEvaluation(this.owner, now, due, now + lease);
    if (row === null) return false;
    try {
      const outcome = await evaluateAlert(this.store, this.calls, row, now);
      const recorded = await this.store.alerts.finishEvaluation(
        row.project_id,
        row.alert_id,
        this.owner,
        nowMicros(),
        outcome,
      );
      this.counters.evaluations += 1;
      if (recorded && outcome.change?.event.state === 'firing') this.counters.fired += 1;
      if (recorded && outcome.change?.event.state === 'resolved') this.counters.resolved += 1;
    } catch (error) {
      // the lease expires and the next poll (on any node) tries again
      this.counters.errors += 1;
      this.#log?.warn({ err: error, project_id: row.project_id, alert_id: row.alert_id }, 'alerts: evaluation failed');
    }
    return true;
  }

  async #sendOne(): Promise<boolean> {
    const now = nowMicros();
    const d = await this.store.alerts.claimDelivery(this.owner, now, now + this.settings.leaseSeconds * 1_000_000);
    if (d === null) return false;
    const event = await this.store.alerts.event(d.project_id, d.alert_id, d.event_id);
    const error = event === null ? 'the event is gone' : await this.#post(d, JSON.parse(event.body) as AlertEvent);
    if (error === null) {
      this.counters.sent += 1;
      await this.store.alerts.finishDelivery(d, this.owner, nowMicros(), { ok: true });
      return true;
    }
    this.counters.failed_attempts += 1;
    const wait = Math.min(MAX_RETRY_MICROS, this.settings.retrySeconds * 1_000_000 * 2 ** (d.attempts - 1));
    const retryAt = d.attempts >= this.settings.maxAttempts || event === null ? null : nowMicros() + wait;
    this.#log?.warn(
      { project_id: d.project_id, event_id: d.event_id, attempts: d.attempts, error },
      'alerts: send failed',
    );
    await this.store.alerts.finishDelivery(d, this.owner, nowMicros(), { ok: false, error, retryAt });
    return true;
  }

  /** Posts one notification; the error, or null when the receiver answered 2xx. */
  async #post(d: AlertDeliveryRow, event: AlertEvent): Promise<string | null> {
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': `${d.event_id}:${d.target}`,
          'user-agent': 'heddle-alerts',
        },
        body: JSON.stringify(webhookBody(event, d.format as WebhookFormat)),
        signal: AbortSignal.any([AbortSignal.timeout(this.settings.timeoutSeconds * 1000), this.#stopping.signal]),
        redirect: 'manual',
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  // ---- the API (routes/alerts.ts)

  async list(caller: Caller, projectId: string) {
    this.access.assertCanRead(caller, projectId);
    const rows = await this.store.alerts.list(projectId);
    const now = nowMicros();
    return { alerts: rows.map((row) => view(row, now)) };
  }

  async history(caller: Caller, projectId: string, alertId: string, limit: number) {
    this.access.assertCanRead(caller, projectId);
    const row = await this.store.alerts.get(projectId, alertId);
    if (row === null) throw new NotFoundError(`Alert ${alertId} not found in ${projectId}`);
    const events = await this.store.alerts.history(projectId, alertId, limit);
    const deliveries = await this.store.alerts.deliveries(
      projectId,
      events.map((e) => e.event_id),
    );
    return {
      alert: view(row, nowMicros()),
      events: events.map((e) => ({
        event_id: e.event_id,
        state: e.state,
        at: formatMicros(e.at),
        event: JSON.parse(e.body) as AlertEvent,
        deliveries: deliveries
          .filter((d) => d.event_id === e.event_id)
          .map((d) => ({
            target: d.target,
            url: d.url,
            format: d.format,
            status: d.status,
            attempts: d.attempts,
            last_error: d.last_error,
            sent_at: d.sent_at === null ? null : formatMicros(d.sent_at),
            idempotency_key: `${d.event_id}:${d.target}`,
          })),
      })),
    };
  }

  /** Mutes or unmutes; `until` (ISO 8601, in the future) makes the mute end by itself. */
  async mute(caller: Caller, projectId: string, alertId: string, req: { muted: boolean; until?: string | null }) {
    await this.access.assertCanWrite(caller, projectId);
    const now = nowMicros();
    const until = muteEnd(req, now);
    if (!(await this.store.alerts.setMuted(projectId, alertId, { muted: req.muted, until }, now)))
      throw new NotFoundError(`Alert ${alertId} not found in ${projectId}`);
    return { alert_id: alertId, muted: req.muted, muted_until: until === null ? null : formatMicros(until) };
  }
}

/** The end of a timed mute in microseconds, or null; 400 for a time that is not one or is not ahead. */
function muteEnd(req: { muted: boolean; until?: string | null }, now: number): number | null {
  if (req.until == null) return null;
  if (!req.muted) throw new InvalidRequestError('until applies only to muting (muted: true)');
  const until = parseIsoMicros(req.until);
  if (until === null)
    throw new InvalidRequestError(`until must be an ISO 8601 date-time, got ${JSON.stringify(req.until)}`);
  if (until <= now) throw new InvalidRequestError(`until must be in the future, got ${req.until}`);
  return until;
}

function view(row: AlertStateRow, now: number) {
  const muted = isMutedAt(row, now);
  const val: unknown = JSON.parse(row.spec);
  const published = isRecord(val) ? val : {};
  return {
    alert_id: row.alert_id,
    active: row.active,
    state: row.state,
    value: row.value,
    muted,
    muted_until: muted && row.muted_until !== null ? formatMicros(row.muted_until) : null,
    changed_at: formatMicros(row.changed_at),
    evaluated_at: row.evaluated_at === null ? null : formatMicros(row.evaluated_at),
    spec_error: specProblem(row),
    last_fired_at: row.last_fired_at === null ? null : formatMicros(row.last_fired_at),
    op_scope: Array.isArray(published.op_scope)
      ? published.op_scope.filter((s): s is string => typeof s === 'string')
      : [],
    spec: isRecord(published.spec) ? published.spec : {},
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
