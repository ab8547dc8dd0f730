import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance, FastifyServerOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../src/store/types.js';
import type { Trainer } from '../../src/training/trainer-port.js';
import { createTestDatabase } from './postgres.js';

export interface TestApp {
  app: FastifyInstance;
  store: TraceStore;
  config: Config;
  /** Key of user `alice`, member and admin of entity `acme` (the default test project is `acme/demo`). */
  aliceKey: string;
  /** Key of user `bob`, member and admin of entity `other` only. */
  bobKey: string;
  /** POST a JSON body as alice (or with the given key; `null` sends no credentials). */
  post(url: string, body: unknown, key?: string | null): Promise<LightMyRequestResponse>;
  get(url: string, key?: string | null): Promise<LightMyRequestResponse>;
}

export const PROJECT = 'acme/demo';

export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
}

/** The store the HTTP tests run on: HEDDLE_TEST_STORE=postgres runs them on PostgreSQL (scripts/test.sh does both). */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.HEDDLE_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A fresh app on its own store, closed and removed when the test ends: a SQLite file, or with
 * HEDDLE_TEST_STORE=postgres a fresh PostgreSQL database (test/helpers/postgres.ts).
 */
export async function buildTestApp(
  t: Pick<TestContext, 'after'>,
  env: Record<string, string> = {},
  opts: {
    trainer?: Trainer;
    beforeReady?: (app: FastifyInstance) => void;
    /** A logger for the app (default none), e.g. to check what reaches the log lines. */
    logger?: FastifyServerOptions['logger'];
    /** The store, whatever HEDDLE_TEST_STORE says (a test moving data between both kinds). */
    store?: 'sqlite' | 'postgres';
  } = {},
): Promise<TestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-test-'));
  const database = (opts.store ?? TEST_STORE) === 'postgres' ? await createTestDatabase() : null;
  const config = loadConfig({
    HEDDLE_DATA_DIR: dir,
    HEDDLE_LOG_LEVEL: 'silent',
    ...(database ? { HEDDLE_DATABASE_URL: database.url } : {}),
    ...env,
  });
  const store: TraceStore = database
    ? new PostgresStore({ url: database.url, maxPendingWrites: config.overload.maxStoreQueue })
    : new SqliteStore({ file: path.join(dir, 'heddle.sqlite'), maxPendingWrites: config.overload.maxStoreQueue });
  await store.migrate();
  const app = await buildApp({ config, store, trainer: opts.trainer ?? null, logger: opts.logger });
  // routes can only be added before ready (a test's probe route)
  opts.beforeReady?.(app);
  await app.ready();
  t.after(async () => {
    // the test is over: a socket a client left behind (an aborted request) must not hold the close
    // until the server's header timeout, a minute later
    if (app.server.listening) app.server.closeAllConnections();
    await app.close();
    await store.close();
    await database?.release();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const alice = await app.services.auth.createKey({ entity: 'acme', username: 'alice' });
  const bob = await app.services.auth.createKey({ entity: 'other', username: 'bob' });
  // each administers its own entity (may manage its keys, routes/keys.ts)
  await store.auth.setMembershipRole(alice.record.userId, 'acme', 'admin');
  await store.auth.setMembershipRole(bob.record.userId, 'other', 'admin');
  const aliceKey = alice.key;
  const bobKey = bob.key;
  const headers = (key: string | null | undefined): Record<string, string> => {
    const k = key === undefined ? aliceKey : key;
    return k === null ? {} : { authorization: basicAuth(k) };
  };
  return {
    app,
    store,
    config,
    aliceKey,
    bobKey,
    post: (url, body, key) =>
      app.inject({
        method: 'POST',
        url,
        headers: { ...headers(key), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      }),
    get: (url, key) => app.inject({ method: 'GET', url, headers: headers(key) }),
  };
}

/** Parses a JSON Lines body. */
export function parseJsonl(body: string): Array<Record<string, unknown>> {
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
