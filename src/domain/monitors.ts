import { createHash } from 'node:crypto';

/**
 * A published `Monitor` object's value, as the Python client's `weave.Monitor` stores it
 * (docs/monitors.md): `sampling_rate`, `scorers` (refs), `op_names` (full op refs ending in `:*`
 * since the client normalizes short names) and `query` (`{"$expr": …}`) at the top level, `active`.
 * Older clients nested `op_names` and `query` in `call_filter`; both shapes are read.
 */
export interface MonitorSpec {
  active: boolean;
  samplingRate: number;
  /** Op refs (a `:*` suffix matches every version); empty = every op. */
  opNames: string[];
  /** The `query` of a calls query (`{"$expr": …}`), or null. */
  query: { $expr: unknown } | null;
  /** Scorer object refs. */
  scorers: string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];

/** A short op name (as a client that did not normalize may store it) becomes `weave:///<project>/op/<name>:*`. */
export function opNameFilter(projectId: string, name: string): string {
  const trimmed = name.trim();
  if (trimmed.startsWith('weave:///')) return trimmed;
  return `weave:///${projectId}/op/${trimmed.replace(/^\/+|\/+$/g, '')}:*`;
}

function queryOf(v: unknown): { $expr: unknown } | null {
  if (!isRecord(v) || v.$expr === undefined || v.$expr === null) return null;
  return { $expr: v.$expr };
}

/** Reads a Monitor value; missing fields take the client's defaults (inactive, rate 1, every op). */
export function parseMonitor(projectId: string, val: unknown): MonitorSpec {
  const v = isRecord(val) ? val : {};
  const filter = isRecord(v.call_filter) ? v.call_filter : {};
  const rate = typeof v.sampling_rate === 'number' && Number.isFinite(v.sampling_rate) ? v.sampling_rate : 1;
  const opNames = strings(v.op_names ?? filter.op_names);
  return {
    active: v.active === true,
    samplingRate: Math.min(1, Math.max(0, rate)),
    opNames: opNames.map((name) => opNameFilter(projectId, name)),
    query: queryOf(v.query ?? filter.query),
    scorers: strings(v.scorers),
  };
}

/**
 * Whether a call is in a monitor's sample: a hash of (project, monitor, call) against the rate, so
 * every node decides the same and a replay samples the same calls (docs/monitors.md).
 */
export function sampledIn(projectId: string, monitorId: string, callId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  const hash = createHash('sha256').update(`${projectId}\n${monitorId}\n${callId}`).digest();
  return hash.readUIntBE(0, 6) / 2 ** 48 < rate;
}
