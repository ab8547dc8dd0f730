import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { AuthService } from './services/auth-service.js';
import { createStore } from './store/create-store.js';
import { formatMicros } from './domain/time.js';

/** The entity of the bootstrap admin user. */
const ADMIN_ENTITY = 'admin';

const USAGE = `Usage: heddle <command>
  serve                                   start the server (default)
  keys create --entity E [--user U] [--admin]   create an API key (printed once)
  keys list                               list keys (never their secrets)
  keys revoke ID                          revoke a key`;

/** How long in-flight requests get to finish after SIGTERM before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

async function serve(config: Config): Promise<void> {
  const store = await createStore(config);
  const app = await buildApp({ config, store, logger: { level: config.logLevel } });
  const generated = await app.services.auth.bootstrapAdmin(config.adminKey, ADMIN_ENTITY);
  if (generated) {
    const file = path.join(config.dataDir, 'admin-key');
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, `${generated}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600); // writeFileSync's mode applies only when it creates the file
    process.stdout.write(`Created an admin API key (shown once, also saved to ${file}):\n  ${generated}\n`);
  }
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests and flushing writes');
    // Requests in flight finish (their writes are acknowledged only after commit; their answers
    // close the connection, plugins/graceful-close.ts). A request still running after the grace
    // period (a long stream) is cut so the process does not hang.
    const cut = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    let code = 0;
    try {
      await app.close();
    } catch (error) {
      app.log.error({ err: error }, 'closing the HTTP server failed');
      code = 1;
    }
    clearTimeout(cut);
    try {
      await store.close();
    } catch (error) {
      app.log.error({ err: error }, 'closing the store failed');
      code = 1;
    }
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
}

const CREATE_OPTIONS = {
  entity: { type: 'string' },
  user: { type: 'string' },
  admin: { type: 'boolean', default: false },
} as const;

function parseCreateOptions(args: string[]): { entity?: string; user?: string; admin?: boolean } {
  try {
    return parseArgs({ args, options: CREATE_OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

async function keys(config: Config, args: string[]): Promise<void> {
  const store = await createStore(config);
  const auth = new AuthService(store);
  try {
    const [sub, ...rest] = args;
    if (sub === 'create') {
      const values = parseCreateOptions(rest);
      const entity = values.entity;
      if (!entity) throw new UsageError('keys create needs --entity');
      // Entities are the first half of `entity/project` ids (calls spec §1).
      if (entity.includes('/') || entity.length > 128)
        throw new UsageError(`Invalid entity name "${entity}": no "/", at most 128 characters`);
      const admin = values.admin === true;
      const { key, record } = await auth.createKey({ entity, username: values.user, admin });
      process.stdout.write(
        `id: ${record.id}\nuser: ${record.username}\nentity: ${entity}\nadmin: ${admin}\nkey: ${key}\n`,
      );
    } else if (sub === 'list' && rest.length === 0) {
      // Only the prefix is stored, so the secret cannot be shown even by mistake.
      process.stdout.write('id\tprefix\tuser\trole\tcreated\tstate\n');
      for (const k of await auth.listKeys()) {
        const state = k.revoked_at === null ? 'active' : `revoked ${formatMicros(k.revoked_at)}`;
        process.stdout.write(
          `${k.id}\t${k.prefix}…\t${k.username}\t${k.is_admin ? 'admin' : 'user'}\t${formatMicros(k.created_at)}\t${state}\n`,
        );
      }
    } else if (sub === 'revoke' && rest.length === 1) {
      if (!(await auth.revokeKey(rest[0]))) throw new UsageError(`No key with id ${rest[0]}`);
      // A running server looks keys up on every request, so this takes effect at once there too.
      process.stdout.write(`revoked ${rest[0]}\n`);
    } else {
      throw new UsageError(USAGE);
    }
  } finally {
    await store.close();
  }
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') return serve(config);
  if (command === 'keys') return keys(config, rest);
  throw new UsageError(USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
