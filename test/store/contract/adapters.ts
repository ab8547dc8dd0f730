import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, type TestContext } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../../src/store/types.js';
import { createTestDatabase, ensurePostgres } from '../../helpers/postgres.js';

/**
 * Every store adapter the contract suite runs against (kysely's test-setup pattern): each suite is
 * written once and looped over this list. `HEDDLE_TEST_ADAPTERS=sqlite` (comma-separated) narrows it.
 */
export interface Adapter {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated store and how to dispose of it; null when the backend cannot be had (never with CI=true). */
  open(options?: AdapterOptions): Promise<{ store: TraceStore; dispose(): Promise<void> } | null>;
}

/** Store options a suite may set (both adapters take them). */
export interface AdapterOptions {
  maxPendingWrites?: number;
}

const ALL: Adapter[] = [
  {
    name: 'sqlite',
    async open(options = {}) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-contract-'));
      const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite'), ...options });
      await store.migrate();
      return {
        store,
        dispose: async () => {
          await store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    async open(options = {}) {
      if ((await ensurePostgres()) === null) return null;
      const db = await createTestDatabase();
      const store = new PostgresStore({ url: db.url, ...options });
      await store.migrate();
      return {
        store,
        dispose: async () => {
          await store.close();
          await db.release();
        },
      };
    },
  },
];

export const ADAPTERS: Adapter[] = (() => {
  const wanted = process.env.HEDDLE_TEST_ADAPTERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return wanted && wanted.length > 0 ? ALL.filter((a) => wanted.includes(a.name)) : ALL;
})();

/**
 * Runs `suite` once per adapter inside `describe(adapter name)`. The suite gets `store()`, one
 * store shared by the tests of that describe (tests use their own project ids), opened before
 * them and disposed after them.
 */
export function forEachAdapter(
  title: string,
  suite: (store: () => TraceStore) => void,
  options?: AdapterOptions,
): void {
  for (const adapter of ADAPTERS) {
    describe(`${title} [${adapter.name}]`, () => {
      let opened: { store: TraceStore; dispose(): Promise<void> } | null = null;
      let unavailable = false;
      before(async () => {
        opened = await adapter.open(options);
        unavailable = opened === null;
      });
      after(async () => {
        await opened?.dispose();
      });
      suite(() => {
        if (unavailable) throw new SkipAdapter();
        if (!opened) throw new Error(`${adapter.name} store is not open`);
        return opened.store;
      });
    });
  }
}

/** Thrown by `store()` when the adapter's backend is unavailable outside CI; `guard` turns it into a skip. */
export class SkipAdapter extends Error {}

/** Wraps a test body so an unavailable backend (outside CI) skips the test instead of failing it. */
export function guard(body: (t: TestContext) => Promise<void>): (t: TestContext) => Promise<void> {
  return async (t) => {
    try {
      await body(t);
    } catch (error) {
      if (error instanceof SkipAdapter) return t.skip('backend unavailable');
      throw error;
    }
  };
}

let projectCounter = 0;
/** A project id no other test of the process uses. */
export function freshProject(): string {
  projectCounter += 1;
  return `ent${process.pid}/p${projectCounter}`;
}
