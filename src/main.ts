import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { dbCommand } from './cli/db-command.js';
import { exportCommand } from './cli/export-command.js';
import { keysCommand } from './cli/keys-command.js';
import { auditCommand } from './cli/audit-command.js';
import { projectCommand } from './cli/project-command.js';
import { openStore } from './cli/open-store.js';
import { checkDataDir, listenFailure, probePort, StartupError } from './cli/startup-errors.js';
import { USAGE, UsageError } from './cli/usage.js';
import { loggerOptions } from './plugins/log-format.js';
import { ConfigError, CONFIG_VARIABLES, loadConfig, type Config } from './config/config.js';
import { unknownVariableWarnings } from './config/unknown-env.js';

/** The entity of the bootstrap admin user. */
const ADMIN_ENTITY = 'admin';

/** How long in-flight requests get to finish after SIGTERM before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Everything that can fail for a reason the operator fixes (data directory, port, database) is
 * checked before anything is created, and the first admin key is made only once the server
 * listens: a start that fails leaves no key behind that was printed but never usable.
 */
async function serve(config: Config): Promise<void> {
  if (!config.databaseUrl) checkDataDir(config.dataDir);
  await probePort(config.host, config.port);
  if (config.probePort !== null) await probePort(config.host, config.probePort, 'HEDDLE_PROBE_PORT');
  if (!config.databaseUrl) fs.mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore(config);
  const app = await buildApp({ config, store, logger: loggerOptions(config.logLevel, config.logFormat) });
  // Signals are handled from here on, before listening: a SIGTERM right after the listening line
  // (a container stopped at once) still drains and closes instead of killing the process.
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
  // A configured HEDDLE_ADMIN_KEY must work the moment the server says it listens; it is the
  // operator's own secret, so ensuring it early creates nothing they do not already hold.
  if (config.adminKey) await app.services.auth.bootstrapAdmin(config.adminKey, ADMIN_ENTITY);
  try {
    await app.listen({ host: config.host, port: config.port, backlog: config.listenBacklog });
  } catch (error) {
    await app.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw listenFailure(error, config.host, config.port) ?? error;
  }
  // A generated key only once listening: a start that failed never printed a key.
  const generated = config.adminKey ? null : await app.services.auth.bootstrapAdmin(undefined, ADMIN_ENTITY);
  if (generated) {
    const file = path.join(config.dataDir, 'admin-key');
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, `${generated}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600); // writeFileSync's mode applies only when it creates the file
    if (config.printAdminKey)
      process.stdout.write(`Created an admin API key (shown once, also saved to ${file}):\n  ${generated}\n`);
    else
      process.stdout.write(`Created an admin API key, saved to ${file} (not printed: HEDDLE_PRINT_ADMIN_KEY=false)\n`);
  }
}

/** The commands besides help; `keys` is the last one tried. */
const COMMANDS: ReadonlySet<string> = new Set(['serve', 'keys', 'export', 'db', 'audit', 'project']);

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // No command prints the help: `npm run heddle` alone should explain, not start a server.
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!COMMANDS.has(command)) throw new UsageError(USAGE);
  const config = loadConfig();
  for (const warning of unknownVariableWarnings(CONFIG_VARIABLES))
    process.stderr.write(`heddle: warning: ${warning}\n`);
  if (command === 'serve') return serve(config);
  if (command === 'export') return exportCommand(config, rest);
  if (command === 'db') return dbCommand(config, rest);
  if (command === 'audit') return auditCommand(config, rest);
  if (command === 'project') return projectCommand(config, rest);
  return keysCommand(config, rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof StartupError) {
    process.stderr.write(`heddle: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
