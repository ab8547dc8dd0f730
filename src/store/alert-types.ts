/**
 * Alerts' durable state (docs/alerts.md, migrations 034 and 035): per AlertSpec its state and evaluation
 * lease, the history of its state changes, and the outbox of notifications. Times in microseconds.
 */

export interface AlertStateRow {
  project_id: string;
  alert_id: string;
  active: boolean;
  /** Muted by a user; with `muted_until`, only until then (isMutedAt in domain/alerts.ts says which). */
  muted: boolean;
  /** When a timed mute ends (microseconds), or null for a mute until unmuted (or no mute). */
  muted_until: number | null;
  /** The latest version's value (JSON) and its publisher (JSON, a StoredCaller). */
  spec: string;
  caller: string;
  state: 'ok' | 'firing';
  /** The last evaluated value, or null before the first evaluation with enough calls. */
  value: number | null;
  changed_at: number;
  evaluated_at: number | null;
  /** When it last changed to firing (its newest firing event), or null if it never fired. */
  last_fired_at: number | null;
}

export interface AlertEventRow {
  project_id: string;
  alert_id: string;
  event_id: string;
  state: 'firing' | 'resolved';
  /** The event as notifications carry it (JSON). */
  body: string;
  at: number;
}

export interface AlertDeliveryRow {
  project_id: string;
  event_id: string;
  target: number;
  alert_id: string;
  url: string;
  format: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_at: number;
  last_error: string | null;
  sent_at: number | null;
}

/** An evaluation's outcome: the value, and the event to record when the state changes. */
export interface AlertOutcome {
  value: number | null;
  /** The AlertSpec object is gone (deleted): the alert stops until a version is published again. */
  inactive?: boolean;
  /** Present when the state changes; its deliveries are written with it (none while muted). */
  change?: { event: AlertEventRow; deliveries: Array<{ target: number; url: string; format: string }> };
}

export interface AlertStore {
  /** A version was published: the spec and publisher are replaced; state, mute and history stay. */
  upsert(row: { projectId: string; alertId: string; spec: string; caller: string; now: number }): Promise<void>;
  get(projectId: string, alertId: string): Promise<AlertStateRow | null>;
  list(projectId: string): Promise<AlertStateRow[]>;
  /** Mutes (until `until`, or until unmuted when null) or unmutes; false when the alert is unknown. */
  setMuted(
    projectId: string,
    alertId: string,
    mute: { muted: boolean; until: number | null },
    now: number,
  ): Promise<boolean>;
  /**
   * Leases one active alert last evaluated before `dueBefore` (or never) whose lease is free, for
   * `owner` until `leaseUntil`; null when none is due. Candidates are read first, then locked by
   * key (SKIP LOCKED on PostgreSQL), so concurrent nodes take different alerts.
   */
  claimEvaluation(owner: string, now: number, dueBefore: number, leaseUntil: number): Promise<AlertStateRow | null>;
  /**
   * Records an evaluation, if `owner` still holds the lease: the value, and with a change the new
   * state, its event and its deliveries, in one transaction; the lease is released. False when the
   * lease was lost (another node evaluates it now): nothing is written.
   */
  finishEvaluation(
    projectId: string,
    alertId: string,
    owner: string,
    now: number,
    outcome: AlertOutcome,
  ): Promise<boolean>;
  history(projectId: string, alertId: string, limit: number): Promise<AlertEventRow[]>;
  event(projectId: string, alertId: string, eventId: string): Promise<AlertEventRow | null>;
  deliveries(projectId: string, eventIds: string[]): Promise<AlertDeliveryRow[]>;
  /** Leases one pending delivery due by `now`, bumping its attempts (the fencing token). */
  claimDelivery(owner: string, now: number, leaseUntil: number): Promise<AlertDeliveryRow | null>;
  /**
   * The outcome of an attempt, if `owner` still holds the delivery at `attempts`: sent, or
   * pending again at `retryAt` with the error, or failed for good (`retryAt` null).
   */
  finishDelivery(
    d: Pick<AlertDeliveryRow, 'project_id' | 'event_id' | 'target' | 'attempts'>,
    owner: string,
    now: number,
    result: { ok: true } | { ok: false; error: string; retryAt: number | null },
  ): Promise<boolean>;
}
