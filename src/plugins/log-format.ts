const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every pino line carries, or that the human line shows in its own place. */
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err', 'reqId']);

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/**
 * One pino JSON line as one human line: `12:00:01.234 WARN  slow request method=POST url=/calls/stream_query status=200 ms=2100`.
 * An error shows as its type and message and the first frame of its stack (still one line).
 */
export function humanLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  // the summary's message already says everything its fields hold
  const fields = Object.entries(entry.summary_seconds === undefined ? entry : {})
    .filter(([k, v]) => !OMITTED.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`);
  const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err) {
    const frame = err.stack
      ?.split('\n')
      .find((l) => /^\s+at /.test(l))
      ?.trim();
    fields.push(`err=${value(`${err.type ?? 'Error'}: ${err.message ?? ''}${frame ? ` (${frame})` : ''}`)}`);
  }
  return `${[time, level, String(entry.msg ?? ''), ...fields].filter((s) => s !== '').join(' ')}\n`;
}

/**
 * Logger options for the server: JSON lines (pino's own format) when stdout is not a terminal or
 * `format` is `json`, human single lines on a terminal or with `pretty`. No extra dependency: a
 * small stream turns each JSON line into text.
 */
export function loggerOptions(
  level: string,
  format: 'auto' | 'json' | 'pretty',
  out: NodeJS.WriteStream = process.stdout,
): { level: string; stream?: { write(line: string): void } } {
  const pretty = format === 'pretty' || (format === 'auto' && out.isTTY === true);
  if (!pretty) return { level };
  return { level, stream: { write: (line: string) => out.write(humanLine(line)) } };
}
