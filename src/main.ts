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

async function serve(config: Config): Promise<void> {
  const store = await createStore(config);
  const app = await buildApp({ config, store, logger: { level: config.logLevel } });
  const generated = await app.services.auth.bootstrapAdmin(config.adminKey, ADMIN_ENTITY);
  if (generated) {
    const file = path.join(config.dataDir, 'admin-key');
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, `${generated}\n`, { mode: 0o600 });
    process.stdout.write(`Created an admin API key (shown once, also saved to ${file}):\n  ${generated}\n`);
  }
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests and flushing writes');
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
}

async function keys(config: Config, args: string[]): Promise<void> {
  const store = await createStore(config);
  const auth = new AuthService(store);
  try {
    const [sub, ...rest] = args;
    if (sub === 'create') {
      const { values } = parseArgs({ args: rest, options: { entity: { type: 'string' }, user: { type: 'string' }, admin: { type: 'boolean', default: false } } });
      if (!values.entity) throw new UsageError('keys create needs --entity');
      const { key, record } = await auth.createKey({ entity: values.entity, username: values.user, admin: values.admin });
      process.stdout.write(`id: ${record.id}\nuser: ${record.username}\nentity: ${values.entity}\nadmin: ${values.admin}\nkey: ${key}\n`);
    } else if (sub === 'list') {
      for (const k of await store.auth.listApiKeys()) {
        const state = k.revoked_at === null ? 'active' : `revoked ${formatMicros(k.revoked_at)}`;
        process.stdout.write(`${k.id}\t${k.prefix}…\t${k.username}\t${k.is_admin ? 'admin' : 'user'}\t${formatMicros(k.created_at)}\t${state}\n`);
      }
    } else if (sub === 'revoke' && rest[0]) {
      if (!(await store.auth.revokeApiKey(rest[0]))) throw new UsageError(`No key with id ${rest[0]}`);
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
