import { MEMBERSHIP_ROLE_SQL } from '../membership-role.js';
import type { Migration } from './migration.js';

/** Entity admins: a membership is an `admin` or a plain `member` of its entity (routes/keys.ts). */
export const migration: Migration = {
  id: 7,
  name: 'membership-role',
  sqlite: MEMBERSHIP_ROLE_SQL,
  postgres: MEMBERSHIP_ROLE_SQL,
};
