import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { TraceStore } from '../../src/store/types.js';
import { measure, type PhaseResult } from './measure.js';
import type { ChildServer } from './processes.js';

/**
 * The file phases of the objects benchmark: a large file sent to /file/create as the official
 * clients send it (multipart/form-data, `project_id` field first, then the `file` part) and read
 * back through /file/content, with the server's resident memory watched throughout.
 */

const MIB = 1024 * 1024;
const BOUNDARY = '----heddle-bench-7c1f0e2a9b';

/** kB fields of /proc/<pid>/status, in bytes (null when unreadable). */
export function procMemory(pid: number): { rss: number; anon: number; file: number } | null {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile') };
}

/** Samples the server's RSS every 20 ms while `fn` runs; the highest anonymous and file-backed parts seen. */
async function sampled<T>(pid: number, fn: () => Promise<T>): Promise<{ value: T; maxAnon: number; maxFile: number }> {
  let maxAnon = 0;
  let maxFile = 0;
  const sample = (): void => {
    const m = procMemory(pid);
    if (m) {
      maxAnon = Math.max(maxAnon, m.anon);
      maxFile = Math.max(maxFile, m.file);
    }
  };
  const timer = setInterval(sample, 20);
  try {
    const value = await fn();
    sample();
    return { value, maxAnon, maxFile };
  } finally {
    clearInterval(timer);
  }
}

const authHeader = (apiKey: string): string => `Basic ${Buffer.from(`api:${apiKey}`).toString('base64')}`;

function loopback(baseUrl: string): URL {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`loopback only, not ${baseUrl}`);
  return url;
}

/** POSTs the multipart form, writing the file in 1 MiB pieces with backpressure; resolves with the digest. */
export function uploadFile(
  baseUrl: string,
  apiKey: string,
  project: string,
  name: string,
  data: Buffer,
): Promise<string> {
  const url = loopback(baseUrl);
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="project_id"\r\n\r\n${project}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const headers = {
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    'content-length': head.length + data.length + tail.length,
    authorization: authHeader(apiKey),
  };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/file/create', method: 'POST', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200)
            reject(new Error(`/file/create answered ${res.statusCode}: ${text.slice(0, 300)}`));
          else resolve((JSON.parse(text) as { digest: string }).digest);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    void (async () => {
      req.write(head);
      for (let at = 0; at < data.length; at += MIB) {
        if (!req.write(data.subarray(at, at + MIB))) await new Promise((r) => req.once('drain', r));
      }
      req.end(tail);
    })();
  });
}

/** Reads /file/content as it arrives into a SHA-256; resolves with the hex digest and the byte count. */
export function downloadFile(
  baseUrl: string,
  apiKey: string,
  project: string,
  digest: string,
): Promise<{ sha256: string; bytes: number }> {
  const url = loopback(baseUrl);
  const payload = Buffer.from(JSON.stringify({ project_id: project, digest }));
  const headers = {
    'content-type': 'application/json',
    'content-length': payload.length,
    authorization: authHeader(apiKey),
  };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/file/content', method: 'POST', headers, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`/file/content answered ${res.statusCode}`));
          res.resume();
          return;
        }
        const hash = createHash('sha256');
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ sha256: hash.digest('hex'), bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface RoundTrip {
  upload: PhaseResult;
  download: PhaseResult;
}

const mibOf = (bytes: number): number => Math.round(bytes / MIB);

/**
 * One round trip of `sizeMiB` fresh random bytes: upload, download, sha256 compared. Units are
 * MiB, so Units/s is MiB/s. Each phase notes the server's RSS before it and the peaks during it.
 */
export async function fileRoundTrip(
  server: ChildServer,
  apiKey: string,
  project: string,
  sizeMiB: number,
  run: number,
): Promise<RoundTrip> {
  const data = randomBytes(sizeMiB * MIB);
  const sha256 = createHash('sha256').update(data).digest('hex');
  let digest = '';
  const before = procMemory(server.pid);
  const up = await sampled(server.pid, () =>
    measure(`/file/create, ${sizeMiB} MiB multipart (MiB/s)`, sizeMiB, server, async () => {
      digest = await uploadFile(server.url, apiKey, project, `bench-${run}.bin`, data);
    }),
  );
  const between = procMemory(server.pid);
  let got = { sha256: '', bytes: 0 };
  const down = await sampled(server.pid, () =>
    measure(`/file/content, ${sizeMiB} MiB (MiB/s)`, sizeMiB, server, async () => {
      got = await downloadFile(server.url, apiKey, project, digest);
    }),
  );
  if (got.bytes !== data.length || got.sha256 !== sha256)
    throw new Error(`file round trip changed the bytes: ${got.bytes} bytes, sha256 ${got.sha256} vs ${sha256}`);
  const after = procMemory(server.pid);
  const note = (start: typeof before, phase: PhaseResult, s: { maxAnon: number; maxFile: number }): PhaseResult => ({
    ...phase,
    extra: {
      run,
      rss_before_mib: start ? mibOf(start.rss) : 'n/a',
      peak_over_before_mib: start && phase.serverPeakRss !== null ? mibOf(phase.serverPeakRss - start.rss) : 'n/a',
      max_sampled_anon_mib: mibOf(s.maxAnon),
      max_sampled_file_mib: mibOf(s.maxFile),
      sha256_equal: 'yes',
    },
  });
  const download = note(between, down.value, down);
  return {
    upload: note(before, up.value, up),
    download: { ...download, extra: { ...download.extra, rss_after_mib: after ? mibOf(after.rss) : 'n/a' } },
  };
}

/** The same bytes through the store in process (stageChunk of 1 MiB pieces + commitUpload, then readChunks). */
export async function fileThroughStore(
  store: TraceStore,
  project: string,
  sizeMiB: number,
  run: number,
): Promise<RoundTrip> {
  const data = randomBytes(sizeMiB * MIB);
  const uploadId = `bench-${run}-${randomBytes(6).toString('hex')}`;
  const digest = `bench-${uploadId}`;
  const upload = await measure(
    `store stageChunk + commitUpload, ${sizeMiB} MiB, in process (MiB/s)`,
    sizeMiB,
    null,
    async () => {
      for (let seq = 0; seq * MIB < data.length; seq += 1)
        await store.files.stageChunk(project, uploadId, seq, data.subarray(seq * MIB, (seq + 1) * MIB));
      await store.files.commitUpload(project, uploadId, {
        digest,
        name: null,
        size_bytes: data.length,
        chunk_count: Math.ceil(data.length / MIB),
        created_at: Date.now() * 1000,
      });
    },
  );
  const hash = createHash('sha256');
  const download = await measure(`store readChunks, ${sizeMiB} MiB, in process (MiB/s)`, sizeMiB, null, async () => {
    for await (const chunk of store.files.readChunks(project, digest)) hash.update(chunk);
  });
  if (hash.digest('hex') !== createHash('sha256').update(data).digest('hex'))
    throw new Error('store file round trip changed the bytes');
  return { upload: { ...upload, extra: { run } }, download: { ...download, extra: { run } } };
}
