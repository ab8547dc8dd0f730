import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-entry.js';
import type { HealthReport, ProbeMessage, ProbeReply, ProbeThreadData } from './probe-thread.js';

/**
 * A second listener for health checks (`HEDDLE_PROBE_PORT`, issue 35), served by a thread of its
 * own (plugins/probe-thread.ts). On the API port `/health` waits in line with every request ahead
 * of it: in a burst of 2,000 requests that is seconds. Here it answers in milliseconds, and still
 * tells a stuck API apart: the main thread beats a shared clock every BEAT_MS and sends its health
 * report whenever it changes.
 */

const BEAT_MS = 100;

export interface ProbePortSettings {
  host: string;
  port: number;
  version: string;
  /** A beat older than this answers 503 `unresponsive`. */
  stallMs: number;
  health: () => HealthReport;
  /** The thread failed after it started (its listener broke, or it died). */
  onError?: (error: Error) => void;
}

export interface ProbePort {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts the probe thread; resolves once it listens, rejects naming the address when it cannot. */
export async function startProbePort(settings: ProbePortSettings): Promise<ProbePort> {
  const beatBuffer = new SharedArrayBuffer(8);
  const beat = new BigInt64Array(beatBuffer);
  Atomics.store(beat, 0, BigInt(Date.now()));
  let report = settings.health();
  const workerData: ProbeThreadData = {
    host: settings.host,
    port: settings.port,
    version: settings.version,
    stallMs: settings.stallMs,
    beat: beatBuffer,
    health: report,
  };
  const worker: Worker = startWorker(import.meta.url, 'probe-thread', { workerData });
  const [first] = (await once(worker, 'message')) as [ProbeReply];
  if (!('listening' in first)) {
    await worker.terminate();
    const why = 'failed' in first ? first.failed : 'it stopped';
    throw new Error(`The probe port ${settings.host}:${settings.port} (HEDDLE_PROBE_PORT) cannot listen: ${why}`);
  }
  worker.on('error', (error) => settings.onError?.(error));
  worker.on('message', (reply: ProbeReply) => {
    if ('failed' in reply) settings.onError?.(new Error(`probe port: ${reply.failed}`));
  });
  const timer = setInterval(() => {
    Atomics.store(beat, 0, BigInt(Date.now()));
    const next = settings.health();
    if (JSON.stringify(next) === JSON.stringify(report)) return;
    report = next;
    worker.postMessage({ health: next } satisfies ProbeMessage);
  }, BEAT_MS);
  // the beat must not keep a process alive whose server has closed
  timer.unref();
  worker.unref();
  return {
    port: first.listening,
    async stop() {
      clearInterval(timer);
      // held until it has closed its listener (or 2 s), then ended
      worker.ref();
      const stopped = once(worker, 'message');
      worker.postMessage({ stop: true } satisfies ProbeMessage);
      let cut: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise((resolve) => (cut = setTimeout(resolve, 2_000)))]);
      clearTimeout(cut);
      await worker.terminate();
    },
  };
}

/** Starts the probe port with the app (after its routes are ready) and stops it when the app closes. */
export function registerProbePort(app: FastifyInstance, settings: Omit<ProbePortSettings, 'onError'>): void {
  let probe: ProbePort | null = null;
  app.addHook('onReady', async () => {
    probe = await startProbePort({
      ...settings,
      onError: (error) => app.log.error({ err: error }, 'the probe port failed; /health still answers on the API port'),
    });
    app.log.info({ host: settings.host, port: probe.port }, 'probe port listening (GET /health, /version)');
  });
  app.addHook('onClose', async () => {
    await probe?.stop();
    probe = null;
  });
}
