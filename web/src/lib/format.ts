/** Display helpers. Everything returns plain strings, rendered as text. */

/** `weave:///e/p/op/name:digest` → `name`; any other string is returned unchanged. */
export function opDisplayName(opName: string): string {
  const ref = parseRef(opName);
  return ref ? ref.name : opName;
}

export interface ParsedRef {
  entity: string;
  project: string;
  kind: 'op' | 'object' | 'table' | 'call';
  name: string;
  digest: string;
  extra: string[];
}

/** Parses an external weave ref (objects spec §5.1); null when the string is not one. */
export function parseRef(s: string): ParsedRef | null {
  if (!s.startsWith('weave:///')) return null;
  const parts = s.slice('weave:///'.length).split('/');
  if (parts.length < 4) return null;
  const [entity = '', project = '', kind, body = '', ...extra] = parts;
  if (kind === 'op' || kind === 'object') {
    const i = body.lastIndexOf(':');
    if (i <= 0) return null;
    return { entity, project, kind, name: decodeURIComponent(body.slice(0, i)), digest: body.slice(i + 1), extra };
  }
  if (kind === 'table' || kind === 'call') return { entity, project, kind, name: body, digest: body, extra };
  return null;
}

/** The external ref of one op or object version (the inverse of parseRef for those kinds). */
export function objectVersionRef(projectId: string, kind: 'op' | 'object', name: string, digest: string): string {
  return `weave:///${projectId}/${kind}/${encodeURIComponent(name)}:${digest}`;
}

const numberFormat = new Intl.NumberFormat('en-US');

export function formatInt(n: number): string {
  return numberFormat.format(n);
}

export function formatLatency(ms: number | null | undefined): string {
  if (ms == null) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} m ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd == null) return '—';
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(2)}`;
}

const dateTime = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
  timeZone: 'UTC',
});

/** Absolute UTC time, e.g. `04 Mar 2025, 10:00:00 UTC`. */
export function formatTime(iso: string | null | undefined, suffix = true): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return suffix ? `${dateTime.format(d)} UTC` : dateTime.format(d);
}

/** A short one-line preview of any JSON value. */
export function preview(value: unknown, max = 120): string {
  let s: string;
  if (typeof value === 'string') s = value;
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  s = s.replace(/\s+/g, ' ');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** `1 call`, `2 calls`, `10,000+ calls`. */
export function plural(n: number | string, word: string): string {
  return `${typeof n === 'number' ? formatInt(n) : n} ${word}${n === 1 ? '' : 's'}`;
}
