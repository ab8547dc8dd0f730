/**
 * What the browser tests on official-client data share (client-flows.test.ts, client-defects.test.ts):
 * a real Heddle process with alice's `acme` key and the weave venv's Python to write the data, then
 * a Chromium page signed in to the web app that process serves. Everything is stopped through `t`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { ensureWeaveVenv } from '../clients/python-venv.js';
import { launch } from '../helpers/browser.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { serveUi, signIn, uiSkipReason } from './harness.js';

type Cleanup = { after: (fn: () => unknown) => void };

/** The python demo scripts' folder (test/clients/python). */
export const PY_SCRIPTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'clients', 'python');

/** Why these tests cannot run here (what the browser tests need, and the compiled server), or false. */
export async function clientUiSkipReason(): Promise<string | false> {
  const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');
  return (await uiSkipReason()) || (fs.existsSync(main) ? false : 'dist/ not built (npm run build:server)');
}

export interface ClientServer {
  server: ServerProcess;
  /** alice's key for the entity `acme`. */
  key: string;
  /** The venv's interpreter, with the pinned weave client. */
  python: string;
}

/** A Heddle process (with `env`) and what a Python client needs to write to it. */
export async function startClientServer(t: Cleanup, env: Record<string, string> = {}): Promise<ClientServer> {
  const server = await startServerProcess(t, { env });
  const key = await server.createKey('acme', { user: 'alice' });
  const venv = await ensureWeaveVenv();
  if (!venv.ok) throw new Error(`no Python venv for the weave client: ${venv.reason}`);
  return { server, key, python: venv.python };
}

export interface SignedInPage {
  /** Where the web app is served (the server itself). */
  ui: string;
  browser: Browser;
  page: Page;
  /** Errors the page threw: a test suite asserts none at its end. */
  pageErrors: string[];
}

/** A 1440×900 Chromium page signed in with `key` to the web app `server` serves. */
export async function openSignedIn(
  t: Cleanup,
  server: ServerProcess,
  key: string,
  project: string,
): Promise<SignedInPage> {
  const ui = await serveUi(t, server.url, [project]);
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, ui, key);
  return { ui, browser, page, pageErrors };
}
