import { fmtRate, mib, type PhaseResult } from './measure.js';
import { writeResults } from './report.js';
import type { RoundTrip } from './file-phases.js';
import { round2 } from './table-phases.js';

/** The summary table of the objects benchmark (one per store) and its results files. */

export interface BackendResult {
  backend: string;
  rows: number;
  rowBytes: number;
  build: PhaseResult;
  streams: PhaseResult[];
  storeReads: PhaseResult[];
  storeLines: PhaseResult[];
  smallFile: RoundTrip;
  files: RoundTrip[];
  storeFiles: RoundTrip[];
}

export function median(phases: PhaseResult[]): PhaseResult {
  const sorted = [...phases].sort((a, b) => a.seconds - b.seconds);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const medianOf = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const extraMedian = (phases: PhaseResult[], key: string): number =>
  round2(medianOf(phases.map((p) => Number(p.extra?.[key]))));
const firstRow = (phases: PhaseResult[]): number => extraMedian(phases, 'first_row_ms');
/** CPU of the process doing the work (the server, or this process in process) per row, µs. */
const cpuPerRow = (p: PhaseResult): number => Math.round((((p.serverCpu ?? p.clientCpu) * 1e6) / p.units) * 10) / 10;
const rates = (phases: PhaseResult[]): string => phases.map((p) => fmtRate(p.perSecond)).join(', ');
const peakOver = (p: PhaseResult): string => `${p.extra?.peak_over_before_mib} MiB`;

/** The headline numbers of one store: medians over the runs, every run's rate in brackets. */
export function summaryTable(r: BackendResult): string {
  const stream = median(r.streams);
  const store = median(r.storeReads);
  const lines = median(r.storeLines);
  const share = (100 * stream.perSecond) / store.perSecond;
  const cpuStore = medianOf(r.storeReads.map(cpuPerRow));
  const cpuStream = medianOf(r.streams.map(cpuPerRow));
  const up = median(r.files.map((f) => f.upload));
  const down = median(r.files.map((f) => f.download));
  const storeUp = median(r.storeFiles.map((f) => f.upload));
  const storeDown = median(r.storeFiles.map((f) => f.download));
  const peak = (list: PhaseResult[]): string => mib(Math.max(...list.map((p) => p.serverPeakRss ?? 0)));
  const size = r.files[0]!.upload.units;
  return [
    `| Measure (${r.backend}) | Result (median; every run) |`,
    '|---|---:|',
    `| Table build over HTTP, ${r.rows.toLocaleString('en-US')} rows of ${Math.round(r.rowBytes)} B (rows/s) | ${fmtRate(r.build.perSecond)} |`,
    `| **/table/query_stream** (rows/s) | ${fmtRate(stream.perSecond)} (${rates(r.streams)}) |`,
    `| Store TableStore.query in process (rows/s) | ${fmtRate(store.perSecond)} (${rates(r.storeReads)}) |`,
    `| **Stream as % of store** | ${share.toFixed(0)} % |`,
    `| Store + service row JSON in process, no HTTP (rows/s) | ${fmtRate(lines.perSecond)} (${rates(r.storeLines)}) |`,
    `| Time to first row: stream / store (ms) | ${firstRow(r.streams)} / ${firstRow(r.storeReads)} |`,
    `| A small request (/table/query_stats, new connection) for comparison (ms) | ${extraMedian(r.streams, 'small_request_ms')} |`,
    `| CPU µs per row: store in process / server streaming, ratio (steadier under load) | ${cpuStore} / ${cpuStream} = ${((100 * cpuStore) / cpuStream).toFixed(0)} % |`,
    `| **/file/create ${size} MiB** (MiB/s) | ${up.perSecond.toFixed(1)} (${r.files.map((f) => f.upload.perSecond.toFixed(1)).join(', ')}) |`,
    `| **/file/content ${size} MiB** (MiB/s) | ${down.perSecond.toFixed(1)} (${r.files.map((f) => f.download.perSecond.toFixed(1)).join(', ')}) |`,
    `| Store in process, write / read ${size} MiB (MiB/s) | ${storeUp.perSecond.toFixed(1)} / ${storeDown.perSecond.toFixed(1)} |`,
    `| Server RSS before the first ${size} MiB upload | ${r.files[0]!.upload.extra?.rss_before_mib} MiB |`,
    `| Server peak RSS (VmHWM) during upload / download, highest run | ${peak(r.files.map((f) => f.upload))} / ${peak(r.files.map((f) => f.download))} |`,
    `| Peak RSS above the RSS before the phase, upload / download, every run | ${r.files.map((f) => `${peakOver(f.upload)} / ${peakOver(f.download)}`).join('; ')} |`,
    `| Same for a ${r.smallFile.upload.units} MiB file (comparison) | ${peakOver(r.smallFile.upload)} / ${peakOver(r.smallFile.download)} |`,
  ].join('\n');
}

/** Writes `objects-<stamp>.md` and `.json` under bench/results/; returns the markdown path. */
export function writeObjectsResults(markdown: string, data: unknown): string {
  return writeResults(markdown, data, 'objects');
}
