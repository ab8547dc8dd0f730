import type { Migration } from './migration.js';

/**
 * A mute that ends by itself (docs/alerts.md): `muted_until` is when a timed mute of an alert ends,
 * in microseconds, or null for a mute that lasts until unmuted. Past that time the alert notifies
 * again, and reads as not muted.
 */
export const migration: Migration = {
  id: 35,
  name: 'alert-mute-until',
  sqlite: 'ALTER TABLE alert_states ADD COLUMN muted_until bigint',
  postgres: 'ALTER TABLE alert_states ADD COLUMN muted_until bigint',
};
