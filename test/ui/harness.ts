/**
 * Runs the built web app (web/dist) against a real in-process Heddle on a free port, for browser
 * tests and screenshots. While the server has no session endpoints (they arrive from the uiserver
 * branch), web/dev/shim.ts and a small static server stand in front of it; once `GET /auth/session`
 * exists, Heddle serves the app itself and the shim is skipped.
 */
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import type { Trainer } from '../../src/training/trainer-port.js';
import { PROJECT, seed, type Seeded } from './seed.js';
import { serveUi } from './serve-ui.js';

export { DIST, distBuilt, serveUi } from './serve-ui.js';

export interface UiServer {
  url: string;
  key: string;
  seeded: Seeded;
  heddleUrl: string;
}

export async function startUi(
  t: Pick<TestContext, 'after'>,
  opts: { roots?: number; bigTrace?: number; trainer?: Trainer } = {},
): Promise<UiServer> {
  const heddle = await buildTestApp(t, {}, { trainer: opts.trainer });
  await heddle.app.listen({ port: 0, host: '127.0.0.1' });
  const heddleUrl = `http://127.0.0.1:${(heddle.app.server.address() as AddressInfo).port}`;
  const seeded = await seed(heddleUrl, heddle.aliceKey, opts);
  const url = await serveUi(t, heddleUrl, [PROJECT]);
  return { url, key: heddle.aliceKey, seeded, heddleUrl };
}
