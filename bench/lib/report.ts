import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmtRate, mib, type PhaseResult } from './measure.js';
import { REPO_ROOT } from './processes.js';

/** Markdown tables of a benchmark run, and the results files under bench/results/. */

export interface Summary {
  rawStore: PhaseResult;
  bareHttp: PhaseResult;
  bareFastify: PhaseResult | null;
  batch: PhaseResult;
  unbatched: PhaseResult;
  stream: PhaseResult;
  seed: PhaseResult;
  latency: PhaseResult[];
  /** The same pages after ANALYZE (what-if). */
  latencyAnalyzed: PhaseResult[];
  bytesPerCall: number;
}

export function machineInfo(): Record<string, string> {
  const git = (args: string[]): string => {
    try {
      return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']),
    // the tree is shared with other work in progress: say whether src/ differs from the commit
    uncommitted_src_files: String(git(['status', '--porcelain', '--', 'src']).split('\n').filter(Boolean).length),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GiB`,
    load_at_start: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

const cores = (cpu: number | null, seconds: number): string => (cpu === null ? '–' : (cpu / seconds).toFixed(2));
/** CPU µs per unit of the process doing the work: the server, or the bench process for in-process phases. */
const cpuPerUnit = (p: PhaseResult): number => ((p.serverCpu ?? p.clientCpu) * 1e6) / p.units;

export function phaseTable(phases: PhaseResult[]): string {
  const rows = phases.map((p) => {
    const details: Record<string, number | string> = { ...p.extra };
    if (p.mainThreadCpu !== null) details.main_thread_cpu_us_per_unit = Math.round((p.mainThreadCpu * 1e6) / p.units);
    const extra = Object.entries(details)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    return `| ${p.name} | ${p.units.toLocaleString('en-US')} | ${p.seconds.toFixed(2)} | ${fmtRate(p.perSecond)} | ${cores(p.serverCpu, p.seconds)} | ${cores(p.clientCpu, p.seconds)} | ${fmtRate(cpuPerUnit(p))} | ${mib(p.serverPeakRss)} | ${extra} |`;
  });
  return [
    '| Phase | Units | Seconds | Units/s | Server CPU (cores) | Bench process CPU (cores) | CPU µs per unit | Server peak RSS | Details |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

const pass = (ok: boolean): string => (ok ? 'met' : '**not met**');

export function summaryTable(s: Summary): string {
  const limit = Math.min(s.bareHttp.perSecond, s.rawStore.perSecond);
  const limitBy = s.bareHttp.perSecond <= s.rawStore.perSecond ? 'bare HTTP server' : 'raw store';
  const share = (100 * s.batch.perSecond) / limit;
  const peak = Math.max(
    ...[s.batch, s.unbatched, s.stream, ...s.latency, ...s.latencyAnalyzed].map((p) => p.serverPeakRss ?? 0),
  );
  const lines = [
    '| Measure | Result | Target |',
    '|---|---:|---|',
    `| Raw store, calls.write of the same parts (rows/s) | ${fmtRate(s.rawStore.perSecond)} | |`,
    `| Bare node:http server, JSON.parse only (calls/s) | ${fmtRate(s.bareHttp.perSecond)} | |`,
    ...(s.bareFastify
      ? [`| Bare Fastify server, no plugins (calls/s, for reference) | ${fmtRate(s.bareFastify.perSecond)} | |`]
      : []),
    `| Ingest limit = lower of the two above (calls/s) | ${fmtRate(limit)} (${limitBy}) | |`,
    `| **/call/upsert_batch** (calls/s, ${Math.round(s.bytesPerCall)} B/call) | ${fmtRate(s.batch.perSecond)} | |`,
    `| Batch ingest as % of the ingest limit | ${share.toFixed(0)} % | ≥ 50 %: ${pass(share >= 50)} |`,
    `| CPU per call: raw store / Heddle batch (µs), ratio (less sensitive to CPU contention) | ${fmtRate(cpuPerUnit(s.rawStore))} / ${fmtRate(cpuPerUnit(s.batch))} = ${((100 * cpuPerUnit(s.rawStore)) / cpuPerUnit(s.batch)).toFixed(0)} % | |`,
    `| Unbatched /call/start + /call/end (calls/s) | ${fmtRate(s.unbatched.perSecond)} | |`,
    `| /calls/stream_query (calls/s) | ${fmtRate(s.stream.perSecond)} | ≥ 50k: ${pass(s.stream.perSecond >= 50_000)} |`,
  ];
  for (const l of s.latency) {
    const median = Number(l.extra?.median_ms);
    lines.push(
      `| ${l.name}: median / p95 (ms) | ${median} / ${l.extra?.p95_ms} | median ≤ 20 ms: ${pass(median <= 20)} |`,
    );
  }
  for (const l of s.latencyAnalyzed) {
    lines.push(
      `| ${l.name}: median / p95 (ms) | ${l.extra?.median_ms} / ${l.extra?.p95_ms} | what-if, not current behaviour |`,
    );
  }
  lines.push(`| Seeding the store in big batches (rows/s) | ${fmtRate(s.seed.perSecond)} | |`);
  lines.push(`| Server peak RSS, highest phase (VmHWM) | ${mib(peak)} | |`);
  return lines.join('\n');
}

/** A results file's markdown: a title, one table, and the machine it ran on. */
export function resultsMarkdown(title: string, header: readonly string[], rows: readonly string[]): string {
  return [
    `# ${title}`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---|').join('')}`,
    ...rows,
    '',
    `Machine: ${JSON.stringify(machineInfo())}`,
    '',
  ].join('\n');
}

/** Writes `<name>-<stamp>.md` and `.json` under bench/results/; returns the markdown path. */
export function writeResults(markdown: string, data: unknown, name = 'ingest'): string {
  const dir = path.join(REPO_ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${name}-${stamp}.md`);
  fs.writeFileSync(file, markdown);
  fs.writeFileSync(path.join(dir, `${name}-${stamp}.json`), `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
