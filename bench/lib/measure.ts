import type { ChildServer } from './processes.js';
import { timed } from './load.js';

/** One measured phase: what was done, how fast, and what it cost the processes involved. */
export interface PhaseResult {
  name: string;
  /** Units processed (calls or rows). */
  units: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds of the server process during the phase (null for in-process phases). */
  serverCpu: number | null;
  /** CPU seconds of the benchmark process (load generator or in-process store). */
  clientCpu: number;
  /** Peak RSS of the server process during the phase, bytes. */
  serverPeakRss: number | null;
  extra?: Record<string, number | string>;
}

/** Wall-clock spans (epoch ms) of every measurement against a server pid, to cut CPU profiles to them. */
export const measuredSpans: Array<{ pid: number; from: number; to: number }> = [];

/** Runs `fn` against `server` (or in process when null), recording time, CPU and the phase's peak RSS. */
export async function measure(name: string, units: number, server: ChildServer | null, fn: () => Promise<void>): Promise<PhaseResult> {
  server?.resetPeakRss();
  const cpu0 = server?.cpuSeconds() ?? 0;
  const from = Date.now();
  const { seconds, clientCpu } = await timed(fn);
  if (server) measuredSpans.push({ pid: server.pid, from, to: Date.now() });
  const serverCpu = server ? server.cpuSeconds() - cpu0 : null;
  return { name, units, seconds, perSecond: units / seconds, serverCpu, clientCpu, serverPeakRss: server?.peakRss() ?? null };
}

export function mib(bytes: number | null): string {
  return bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

export function fmtRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
