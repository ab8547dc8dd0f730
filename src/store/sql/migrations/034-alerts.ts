import type { Migration } from './migration.js';

/**
 * Alerts (docs/alerts.md): `alert_states` holds, per AlertSpec object, its latest spec, the
 * requester its reads run as, whether it is muted, its state (`ok` or `firing`) with the last value,
 * and the evaluation lease (one node evaluates an alert at a time; the state change is checked
 * against the lease holder, so a node that lost its lease changes nothing). `alert_events` is the
 * history of state changes. `alert_deliveries` is the outbox: one row per (event, webhook), written
 * in the transaction that records the event, sent under a lease with retries; its key is the
 * notification's idempotency key.
 */
const POSTGRES = `
CREATE TABLE alert_states (
  project_id text COLLATE "C" NOT NULL,
  alert_id text COLLATE "C" NOT NULL,
  active integer NOT NULL,
  muted integer NOT NULL,
  spec text NOT NULL,
  caller text NOT NULL,
  state text NOT NULL,
  value text,
  changed_at bigint NOT NULL,
  evaluated_at bigint,
  lease_owner text,
  lease_until bigint,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, alert_id)
);
CREATE TABLE alert_events (
  project_id text COLLATE "C" NOT NULL,
  alert_id text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  state text NOT NULL,
  body text NOT NULL,
  at bigint NOT NULL,
  PRIMARY KEY (project_id, alert_id, event_id)
);
CREATE TABLE alert_deliveries (
  project_id text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  target integer NOT NULL,
  alert_id text COLLATE "C" NOT NULL,
  url text NOT NULL,
  format text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL,
  next_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  last_error text,
  sent_at bigint,
  PRIMARY KEY (project_id, event_id, target)
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (project_id, next_at) WHERE status = 'pending';
`;

export const migration: Migration = {
  id: 34,
  name: 'alerts',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', ''),
  postgres: POSTGRES,
};
