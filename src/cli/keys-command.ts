import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { formatMicros } from '../domain/time.js';
import { AuthService } from '../services/auth-service.js';
import { createStore } from '../store/create-store.js';
import { storeFailure } from './startup-errors.js';
import { describeStore } from './store-label.js';
import { USAGE, UsageError } from './usage.js';

const CREATE_OPTIONS = {
  entity: { type: 'string' },
  user: { type: 'string' },
  admin: { type: 'boolean', default: false },
  'entity-admin': { type: 'boolean', default: false },
} as const;

function parseCreateOptions(args: string[]) {
  try {
    return parseArgs({ args, options: CREATE_OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

/** Entities are the first half of `entity/project` ids (docs/spec/calls.md §1). */
function checkName(kind: string, name: string): void {
  if (name === '' || name.includes('/') || name.length > 128)
    throw new UsageError(`Invalid ${kind} name "${name}": no "/", at most 128 characters`);
}

/**
 * `heddle keys create|list|revoke`, straight on the store (no server needed). Every command says
 * which store it used, so a key made against the wrong data directory or database is noticed.
 */
export async function keysCommand(config: Config, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (!(sub === 'create' || (sub === 'list' && rest.length === 0) || (sub === 'revoke' && rest.length === 1)))
    throw new UsageError(USAGE);
  const store = await createStore(config).catch((error: unknown) => {
    throw storeFailure(error, config) ?? error;
  });
  const auth = new AuthService(store);
  const where = describeStore(config);
  try {
    if (sub === 'create') {
      const values = parseCreateOptions(rest);
      const entity = values.entity;
      if (!entity) throw new UsageError('keys create needs --entity');
      checkName('entity', entity);
      if (values.user !== undefined) checkName('user', values.user);
      const admin = values.admin === true;
      const { key, record } = await auth.createKey({ entity, username: values.user, admin });
      const entityAdmin = values['entity-admin'] === true;
      if (entityAdmin) await store.auth.setMembershipRole(record.userId, entity, 'admin');
      process.stdout.write(
        `id: ${record.id}\nuser: ${record.username}\nentity: ${entity}\nentity admin: ${entityAdmin}\nadmin: ${admin}\nkey: ${key}\nstore: ${where}\n`,
      );
    } else if (sub === 'list') {
      // Only the prefix is stored, so the secret cannot be shown even by mistake. The store goes to
      // stderr so that stdout stays one tab-separated table.
      process.stderr.write(`store: ${where}\n`);
      process.stdout.write('id\tprefix\tuser\trole\tcreated\tstate\n');
      for (const k of await auth.listKeys()) {
        const state = k.revoked_at === null ? 'active' : `revoked ${formatMicros(k.revoked_at)}`;
        process.stdout.write(
          `${k.id}\t${k.prefix}…\t${k.username}\t${k.is_admin ? 'admin' : 'user'}\t${formatMicros(k.created_at)}\t${state}\n`,
        );
      }
    } else {
      // revoke takes exactly one argument (checked on entry)
      const id = rest[0]!;
      if (!(await auth.revokeKey(id))) throw new UsageError(`No key with id ${id} in ${where}`);
      // A running server looks keys up on every request, so this takes effect at once there too.
      process.stdout.write(`revoked ${id} in ${where}\n`);
    }
  } finally {
    await store.close();
  }
}
