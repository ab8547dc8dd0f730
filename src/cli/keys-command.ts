import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { isValidName, NAME_RULE, quoteForMessage } from '../domain/project-name.js';
import { formatMicros } from '../domain/time.js';
import { AppError } from '../errors/app-error.js';
import { AuditLog, MembershipService } from '../services/audit-service.js';
import { AuthService } from '../services/auth-service.js';
import { ProjectAccess } from '../services/project-access.js';
import { ENTITY_ROLES, type EntityRole } from '../domain/roles.js';
import type { TraceStore } from '../store/types.js';
import { openStore } from './open-store.js';
import { describeStore } from './store-label.js';
import { USAGE, UsageError } from './usage.js';

const CREATE_OPTIONS = {
  entity: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
  admin: { type: 'boolean', default: false },
  'entity-admin': { type: 'boolean', default: false },
} as const;

const ROLE_OPTIONS = { entity: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } } as const;

function parse<O extends typeof CREATE_OPTIONS | typeof ROLE_OPTIONS>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

/** The entity rule of the HTTP routes (domain/project-name.ts); user names only need no "/". */
function checkEntity(name: string): void {
  if (!isValidName(name)) throw new UsageError(`Invalid entity name ${quoteForMessage(name)}: ${NAME_RULE}`);
}

function checkUser(name: string): void {
  if (name === '' || name.includes('/') || name.length > 128)
    throw new UsageError(`Invalid user name ${quoteForMessage(name)}: no "/", 1 to 128 characters`);
}

function checkRole(role: string | undefined): EntityRole | undefined {
  if (role === undefined) return undefined;
  if (!(ENTITY_ROLES as readonly string[]).includes(role))
    throw new UsageError(`Invalid role ${quoteForMessage(role)}: one of ${ENTITY_ROLES.join(', ')}`);
  return role as EntityRole;
}

/** The services the CLI acts through, as the operator (no caller: audited with no user). */
function operatorServices(store: TraceStore) {
  const auth = new AuthService(store);
  const access = new ProjectAccess(store);
  const audit = new AuditLog(store, access);
  return { auth, audit, memberships: new MembershipService(store, auth, access, audit) };
}

/**
 * `heddle keys create|list|revoke|role`, straight on the store (no server needed). Every command
 * says which store it used, so a key made against the wrong data directory or database is
 * noticed. Changes are recorded in the audit log with no user (the operator).
 */
export async function keysCommand(config: Config, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (!(
    sub === 'create' ||
    sub === 'role' ||
    (sub === 'list' && rest.length === 0) ||
    (sub === 'revoke' && rest.length === 1)
  ))
    throw new UsageError(USAGE);
  const store = await openStore(config);
  const where = describeStore(config);
  try {
    const services = operatorServices(store);
    if (sub === 'create') await create(store, services, rest, where);
    else if (sub === 'role') await setRole(services, rest, where);
    else if (sub === 'list') await list(services.auth, where);
    else await revoke(store, services, rest[0]!, where);
  } catch (error) {
    // a refused role change (404, 409) is the operator's mistake, not a crash
    if (error instanceof AppError && error.status < 500) throw new UsageError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

async function create(
  store: TraceStore,
  { auth, audit, memberships }: ReturnType<typeof operatorServices>,
  args: string[],
  where: string,
): Promise<void> {
  const values = parse(args, CREATE_OPTIONS);
  const entity = values.entity;
  if (!entity) throw new UsageError('keys create needs --entity');
  checkEntity(entity);
  if (values.user !== undefined) checkUser(values.user);
  let role = checkRole(values.role);
  if (values['entity-admin'] === true) {
    if (role !== undefined && role !== 'admin') throw new UsageError(`--entity-admin contradicts --role ${role}`);
    role = 'admin';
  }
  const admin = values.admin === true;
  // a new entity's first key manages it (MembershipService.roleForNewKey)
  role ??= await memberships.roleForNewKey(entity);
  const { key, record } = await auth.createKey({ entity, username: values.user, admin });
  await audit.record(null, entity, 'key.created', record.id, { username: record.username, admin, via: 'cli' });
  if (role !== undefined) await memberships.setRole(null, { entity, username: record.username, role });
  const current = (await store.auth.listMemberships(record.userId)).find((m) => m.entity === entity)?.role;
  process.stdout.write(
    `id: ${record.id}\nuser: ${record.username}\nentity: ${entity}\nrole: ${current}\nentity admin: ${current === 'admin'}\nadmin: ${admin}\nkey: ${key}\nstore: ${where}\n`,
  );
}

async function setRole(
  { memberships }: ReturnType<typeof operatorServices>,
  args: string[],
  where: string,
): Promise<void> {
  const values = parse(args, ROLE_OPTIONS);
  if (!values.entity || !values.user || !values.role)
    throw new UsageError('keys role needs --entity, --user and --role');
  checkEntity(values.entity);
  checkUser(values.user);
  const role = checkRole(values.role)!;
  const changed = await memberships.setRole(null, { entity: values.entity, username: values.user, role });
  process.stdout.write(
    `user: ${changed.username}\nentity: ${changed.entity}\nrole: ${changed.role} (was ${changed.previous_role})\nstore: ${where}\n`,
  );
}

async function list(auth: AuthService, where: string): Promise<void> {
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
}

async function revoke(
  store: TraceStore,
  { auth, audit }: ReturnType<typeof operatorServices>,
  id: string,
  where: string,
): Promise<void> {
  const key = await store.auth.findApiKey(id);
  if (!key || !(await auth.revokeKey(id))) throw new UsageError(`No key with id ${id} in ${where}`);
  // recorded in the log of every entity the key reached
  for (const m of await store.auth.listMemberships(key.user_id))
    await audit.record(null, m.entity, 'key.revoked', id, { username: key.username, prefix: key.prefix, via: 'cli' });
  // A running server looks keys up on every request, so this takes effect at once there too.
  process.stdout.write(`revoked ${id} in ${where}\n`);
}
