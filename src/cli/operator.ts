import type { Caller } from '../services/auth-service.js';

/**
 * The caller the commands act as: whoever runs them on the store's host can open the database, so
 * they read and write every project, as an instance admin does.
 */
export const OPERATOR: Caller = {
  userId: 'cli',
  username: 'cli',
  defaultEntity: 'admin',
  isAdmin: true,
  entities: new Set(),
  roles: new Map(),
  keyId: null,
};
