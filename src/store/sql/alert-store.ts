import type { AlertDeliveryRow, AlertEventRow, AlertOutcome, AlertStateRow, AlertStore } from '../alert-types.js';
import { frag, raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { all, run, type Tx, type TxDialect, type TxRunner } from './core/sql-tx.js';

/** An alert_states row's columns with when it last fired (its newest firing event). */
const STATE_COLUMNS = raw(`s.*, (SELECT MAX(e.at) FROM alert_events e WHERE e.project_id = s.project_id
  AND e.alert_id = s.alert_id AND e.state = 'firing') AS last_fired_at`);

/** Alerts one claim looks at before locking one by key. */
const CANDIDATES = 20;

function stateFromDb(r: Record<string, unknown>): AlertStateRow {
  return {
    project_id: String(r.project_id),
    alert_id: String(r.alert_id),
    active: Number(r.active) === 1,
    muted: Number(r.muted) === 1,
    muted_until: r.muted_until == null ? null : Number(r.muted_until),
    spec: String(r.spec),
    caller: String(r.caller),
    state: r.state === 'firing' ? 'firing' : 'ok',
    value: r.value == null ? null : Number(r.value),
    changed_at: Number(r.changed_at),
    evaluated_at: r.evaluated_at == null ? null : Number(r.evaluated_at),
    last_fired_at: r.last_fired_at == null ? null : Number(r.last_fired_at),
  };
}

function eventFromDb(r: Record<string, unknown>): AlertEventRow {
  return {
    project_id: String(r.project_id),
    alert_id: String(r.alert_id),
    event_id: String(r.event_id),
    state: r.state === 'firing' ? 'firing' : 'resolved',
    body: String(r.body),
    at: Number(r.at),
  };
}

function deliveryFromDb(r: Record<string, unknown>): AlertDeliveryRow {
  return {
    project_id: String(r.project_id),
    event_id: String(r.event_id),
    target: Number(r.target),
    alert_id: String(r.alert_id),
    url: String(r.url),
    format: String(r.format),
    status: r.status as AlertDeliveryRow['status'],
    attempts: Number(r.attempts),
    next_at: Number(r.next_at),
    last_error: (r.last_error as string | null) ?? null,
    sent_at: r.sent_at == null ? null : Number(r.sent_at),
  };
}

/** Alerts' states, history and outbox (docs/alerts.md) over any adapter's transaction runner. */
export class SqlAlertStore implements AlertStore {
  readonly #sql: SqlTag;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  async upsert(a: { projectId: string; alertId: string; spec: string; caller: string; now: number }): Promise<void> {
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* run(sql`INSERT INTO alert_states (project_id, alert_id, active, muted, spec, caller, state, changed_at, updated_at)
        VALUES (${a.projectId}, ${a.alertId}, 1, 0, ${a.spec}, ${a.caller}, 'ok', ${a.now}, ${a.now})
        ON CONFLICT (project_id, alert_id) DO UPDATE SET spec = excluded.spec, caller = excluded.caller,
          active = 1, evaluated_at = NULL, updated_at = excluded.updated_at`);
    });
  }

  async get(projectId: string, alertId: string): Promise<AlertStateRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this
        .#sql`SELECT ${STATE_COLUMNS} FROM alert_states s WHERE s.project_id = ${projectId} AND s.alert_id = ${alertId}`,
    );
    return rows[0] === undefined ? null : stateFromDb(rows[0]);
  }

  async list(projectId: string): Promise<AlertStateRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT ${STATE_COLUMNS} FROM alert_states s WHERE s.project_id = ${projectId} ORDER BY s.alert_id`,
    );
    return rows.map(stateFromDb);
  }

  async setMuted(
    projectId: string,
    alertId: string,
    mute: { muted: boolean; until: number | null },
    now: number,
  ): Promise<boolean> {
    const sql = this.#sql;
    const until = mute.muted ? mute.until : null;
    return this.tx.transaction(function* () {
      const n = yield* run(sql`UPDATE alert_states SET muted = ${mute.muted ? 1 : 0}, muted_until = ${until},
        updated_at = ${now} WHERE project_id = ${projectId} AND alert_id = ${alertId}`);
      return n > 0;
    });
  }

  async claimEvaluation(owner: string, now: number, dueBefore: number, leaseUntil: number) {
    const sql = this.#sql;
    const due = frag`active = 1 AND (lease_until IS NULL OR lease_until < ${now})
      AND (evaluated_at IS NULL OR evaluated_at < ${dueBefore})`;
    const candidates = await this.tx.read<{ project_id: string; alert_id: string }>(
      sql`SELECT project_id, alert_id FROM alert_states WHERE ${due} ORDER BY project_id, alert_id LIMIT ${CANDIDATES}`,
    );
    const claim = raw(this.dialect.claim);
    for (const c of candidates) {
      const got = await this.tx.transaction(function* (): Tx<AlertStateRow | null> {
        const rows = yield* all<Record<string, unknown>>(sql`SELECT * FROM alert_states
          WHERE project_id = ${c.project_id} AND alert_id = ${c.alert_id} AND ${due} ${claim}`);
        if (rows[0] === undefined) return null;
        yield* run(sql`UPDATE alert_states SET lease_owner = ${owner}, lease_until = ${leaseUntil}
          WHERE project_id = ${c.project_id} AND alert_id = ${c.alert_id}`);
        return stateFromDb(rows[0]);
      });
      if (got !== null) return got;
    }
    return null;
  }

  finishEvaluation(projectId: string, alertId: string, owner: string, now: number, outcome: AlertOutcome) {
    const sql = this.#sql;
    const forUpdate = raw(this.dialect.forUpdate);
    return this.tx.transaction(function* () {
      const rows = yield* all<Record<string, unknown>>(sql`SELECT lease_owner FROM alert_states
        WHERE project_id = ${projectId} AND alert_id = ${alertId} ${forUpdate}`);
      if (rows[0]?.lease_owner !== owner) return false;
      const value = outcome.value === null ? null : String(outcome.value);
      const change = outcome.change;
      if (change) {
        const e = change.event;
        const state = e.state === 'firing' ? 'firing' : 'ok';
        yield* run(sql`INSERT INTO alert_events (project_id, alert_id, event_id, state, body, at)
          VALUES (${projectId}, ${alertId}, ${e.event_id}, ${e.state}, ${e.body}, ${e.at})`);
        for (const d of change.deliveries)
          yield* run(sql`INSERT INTO alert_deliveries (project_id, event_id, target, alert_id, url, format, status, attempts, next_at)
            VALUES (${projectId}, ${e.event_id}, ${d.target}, ${alertId}, ${d.url}, ${d.format}, 'pending', 0, ${now})`);
        yield* run(
          sql`UPDATE alert_states SET state = ${state}, changed_at = ${now} WHERE project_id = ${projectId} AND alert_id = ${alertId}`,
        );
      }
      const active = outcome.inactive === true ? 0 : 1;
      yield* run(sql`UPDATE alert_states SET value = ${value}, evaluated_at = ${now}, active = ${active},
        lease_owner = NULL, lease_until = NULL WHERE project_id = ${projectId} AND alert_id = ${alertId}`);
      return true;
    });
  }

  async history(projectId: string, alertId: string, limit: number): Promise<AlertEventRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(this.#sql`SELECT * FROM alert_events
      WHERE project_id = ${projectId} AND alert_id = ${alertId} ORDER BY at DESC, event_id DESC LIMIT ${limit}`);
    return rows.map(eventFromDb);
  }

  async event(projectId: string, alertId: string, eventId: string): Promise<AlertEventRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(this.#sql`SELECT * FROM alert_events
      WHERE project_id = ${projectId} AND alert_id = ${alertId} AND event_id = ${eventId}`);
    return rows[0] === undefined ? null : eventFromDb(rows[0]);
  }

  async deliveries(projectId: string, eventIds: string[]): Promise<AlertDeliveryRow[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.tx.read<Record<string, unknown>>(this.#sql`SELECT * FROM alert_deliveries
      WHERE project_id = ${projectId} AND event_id IN ${eventIds} ORDER BY event_id, target`);
    return rows.map(deliveryFromDb);
  }

  async claimDelivery(owner: string, now: number, leaseUntil: number): Promise<AlertDeliveryRow | null> {
    const sql = this.#sql;
    const free = frag`status = 'pending' AND (lease_until IS NULL OR lease_until < ${now}) AND next_at <= ${now}`;
    const candidates = await this.tx.read<{ project_id: string; event_id: string; target: number }>(
      sql`SELECT project_id, event_id, target FROM alert_deliveries WHERE ${free} ORDER BY next_at LIMIT ${CANDIDATES}`,
    );
    const claim = raw(this.dialect.claim);
    for (const c of candidates) {
      const got = await this.tx.transaction(function* (): Tx<AlertDeliveryRow | null> {
        const rows = yield* all<Record<string, unknown>>(sql`SELECT * FROM alert_deliveries
          WHERE project_id = ${c.project_id} AND event_id = ${c.event_id} AND target = ${c.target}
          AND ${free} ${claim}`);
        if (rows[0] === undefined) return null;
        yield* run(sql`UPDATE alert_deliveries SET attempts = attempts + 1, lease_owner = ${owner}, lease_until = ${leaseUntil}
          WHERE project_id = ${c.project_id} AND event_id = ${c.event_id} AND target = ${c.target}`);
        const row = deliveryFromDb(rows[0]);
        return { ...row, attempts: row.attempts + 1 };
      });
      if (got !== null) return got;
    }
    return null;
  }

  finishDelivery(
    d: Pick<AlertDeliveryRow, 'project_id' | 'event_id' | 'target' | 'attempts'>,
    owner: string,
    now: number,
    result: { ok: true } | { ok: false; error: string; retryAt: number | null },
  ): Promise<boolean> {
    const sql = this.#sql;
    const key = frag`project_id = ${d.project_id} AND event_id = ${d.event_id} AND target = ${d.target}
      AND lease_owner = ${owner} AND attempts = ${d.attempts}`;
    return this.tx.transaction(function* () {
      const n = result.ok
        ? yield* run(sql`UPDATE alert_deliveries SET status = 'sent', sent_at = ${now}, lease_owner = NULL,
            lease_until = NULL, last_error = NULL WHERE ${key}`)
        : yield* run(sql`UPDATE alert_deliveries SET status = ${result.retryAt === null ? 'failed' : 'pending'},
            next_at = ${result.retryAt ?? now}, last_error = ${result.error.slice(0, 1000)}, lease_owner = NULL,
            lease_until = NULL WHERE ${key}`);
      return n > 0;
    });
  }
}
