import fs from 'node:fs';
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
  /**
   * CPU seconds of the main thread alone of the process doing the work (the server, or this
   * process for in-process phases); the rest went to other threads (the SQLite writer thread).
   */
  mainThreadCpu: number | null;
  extra?: Record<string, number | string>;
}

/** Wall-clock spans (epoch ms) of every measurement against a server pid, to cut CPU profiles to them. */
export const measuredSpans: Array<{ pid: number; from: number; to: number }> = [];

/** Runs `fn` against `server` (or in process when null), recording time, CPU and the phase's peak RSS. */
export async function measure(
  name: string,
  units: number,
  server: ChildServer | null,
  fn: () => Promise<void>,
): Promise<PhaseResult> {
  server?.resetPeakRss();
  const pid = server?.pid ?? process.pid;
  const main0 = mainThreadCpuSeconds(pid);
  const cpu0 = server?.cpuSeconds() ?? 0;
  const from = Date.now();
  const { seconds, clientCpu } = await timed(fn);
  if (server) measuredSpans.push({ pid: server.pid, from, to: Date.now() });
  const serverCpu = server ? server.cpuSeconds() - cpu0 : null;
  const main1 = mainThreadCpuSeconds(pid);
  const mainThreadCpu = main0 === null || main1 === null ? null : main1 - main0;
  return {
    name,
    units,
    seconds,
    perSecond: units / seconds,
    serverCpu,
    clientCpu,
    serverPeakRss: server?.peakRss() ?? null,
    mainThreadCpu,
  };
}

/** utime + stime of a process's main thread (Linux /proc; null elsewhere). */
function mainThreadCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export function mib(bytes: number | null): string {
  return bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

export function fmtRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
