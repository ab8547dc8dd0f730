import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { isValidName, NAME_RULE, quoteForMessage } from '../domain/project-name.js';
import { AuditLog } from '../services/audit-service.js';
import { ProjectAccess } from '../services/project-access.js';
import { AUDIT_ACTIONS, type AuditAction } from '../store/audit-types.js';
import { openStore } from './open-store.js';
import { describeStore } from './store-label.js';
import { USAGE, UsageError } from './usage.js';

const OPTIONS = {
  entity: { type: 'string' },
  limit: { type: 'string' },
  action: { type: 'string' },
} as const;

/**
 * `heddle audit --entity E [--limit N] [--action A]`: the entity's audit log, newest first, one
 * JSON object a line, read straight from the store (docs/roles-and-audit.md).
 */
export async function auditCommand(config: Config, args: string[]): Promise<void> {
  let values: { entity?: string; limit?: string; action?: string };
  try {
    values = parseArgs({ args, options: OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const { entity } = values;
  if (!entity) throw new UsageError('audit needs --entity');
  if (!isValidName(entity)) throw new UsageError(`Invalid entity name ${quoteForMessage(entity)}: ${NAME_RULE}`);
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError(`--limit must be an integer from 1 to 1000, got ${quoteForMessage(values.limit ?? '')}`);
  const action = values.action;
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action))
    throw new UsageError(`Unknown --action ${quoteForMessage(action)}: one of ${AUDIT_ACTIONS.join(', ')}`);
  const store = await openStore(config);
  try {
    process.stderr.write(`store: ${describeStore(config)}\n`);
    const log = new AuditLog(store, new ProjectAccess(store));
    const page = await log.list(null, { entity, limit, action: action as AuditAction | undefined });
    for (const entry of page.entries) process.stdout.write(`${JSON.stringify(entry)}\n`);
  } finally {
    await store.close();
  }
}
