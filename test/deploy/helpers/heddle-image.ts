import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { withFileLock } from '../../helpers/file-lock.js';
import { REPO_ROOT } from '../../helpers/server-process.js';
import { until } from '../../helpers/until.js';
import { docSnippets, snippet } from '../../clients/helpers/readme-snippets.js';
import { ensureNodeImage } from './base-images.js';
import { ensurePodman, podman, podmanEnv } from './podman.js';
import { run } from './run.js';

/** The tag the `deploy-build` snippet (docs/deploy.md) gives the image. */
export const HEDDLE_IMAGE = 'localhost/heddle:latest';

const STAMP = path.join(REPO_ROOT, '.cache', 'podman', 'heddle-image.sha256');

/** A digest of everything the image is made from, so a second test file reuses the first one's build. */
function inputsDigest(): string {
  const hash = createHash('sha256');
  const walk = (rel: string): void => {
    const abs = path.join(REPO_ROOT, rel);
    const stat = fs.statSync(abs);
    if (stat.isDirectory()) for (const name of fs.readdirSync(abs).sort()) walk(path.join(rel, name));
    else hash.update(`${rel}\0`).update(fs.readFileSync(abs));
  };
  for (const rel of ['dist', 'web/dist', 'package-lock.json', 'deploy/Containerfile', 'deploy/stage.sh']) walk(rel);
  return hash.digest('hex');
}

/**
 * Builds the image with docs/deploy.md's `deploy-build` snippet, run as printed (bash, in the
 * checkout, after `npm run build`), on the local Node base image; once per change of its inputs.
 */
export async function ensureHeddleImage(): Promise<string> {
  await ensurePodman();
  await ensureNodeImage();
  return withFileLock('heddle-test-heddle-image', async () => {
    const digest = inputsDigest();
    const id = (await podman(['image', 'inspect', '--format', '{{.Id}}', HEDDLE_IMAGE]).catch(() => null))?.stdout;
    if (id && fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === `${digest} ${id.trim()}`) return HEDDLE_IMAGE;
    const code = snippet(docSnippets(), 'deploy-build').code;
    await run('bash', ['-euo', 'pipefail', '-c', code], { cwd: REPO_ROOT, env: podmanEnv(), timeoutMs: 600_000 });
    const built = (await podman(['image', 'inspect', '--format', '{{.Id}}', HEDDLE_IMAGE])).stdout.trim();
    fs.writeFileSync(STAMP, `${digest} ${built}`);
    // the previous build lost its tag: remove it so runs do not pile up images (kept while a container uses it)
    if (id && id.trim() !== built) await podman(['rmi', id.trim()]).catch(() => undefined);
    return HEDDLE_IMAGE;
  });
}

/** The host address a container port was published on (`-p 127.0.0.1::8080`). */
export async function publishedUrl(container: string, port = 8080): Promise<string> {
  const out = (await podman(['port', container, `${port}/tcp`])).stdout.trim().split('\n')[0]!;
  return `http://${out.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}`;
}

/** Waits until GET /health answers 200; the container's log in the error otherwise. */
export async function waitHealthy(url: string, container: string, ms = 90_000): Promise<void> {
  try {
    await until(
      `${url}/health`,
      async () => {
        const res = await fetch(`${url}/health`).catch(() => null);
        return res?.status === 200 ? true : null;
      },
      ms,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- ${container} log\n${await logs(container)}`, { cause: error });
  }
}

export async function logs(container: string): Promise<string> {
  const out = await podman(['logs', container]).catch((e: Error) => ({ stdout: e.message, stderr: '' }));
  return `${out.stdout}${out.stderr}`.slice(-6000);
}

/** `podman inspect` of one field of a container (a Go template). */
export async function inspect(container: string, format: string): Promise<string> {
  return (await podman(['inspect', '--format', format, container])).stdout.trim();
}

/** `heddle keys create` inside the container, as docs/deploy.md says; returns the key. */
export async function createKeyIn(container: string, entity: string): Promise<string> {
  const out = (await podman(['exec', container, 'node', '/app/dist/main.js', 'keys', 'create', '--entity', entity]))
    .stdout;
  const match = /^key: (\S+)$/m.exec(out);
  if (!match) throw new Error(`keys create printed no key:\n${out}`);
  return match[1]!;
}
