import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import type { CallsExportReq } from '../schemas/export.js';
import { AuditLog } from '../services/audit-service.js';
import { CallExportService } from '../services/call-export-service.js';
import { CallQueryService } from '../services/call-query-service.js';
import { FeedbackService } from '../services/feedback-service.js';
import { StorePriceLookup } from '../services/price-table.js';
import { ProjectAccess } from '../services/project-access.js';
import { openStore } from './open-store.js';
import { describeStore } from './store-label.js';
import { USAGE, UsageError } from './usage.js';
import { OPERATOR } from './operator.js';

const OPTIONS = {
  project: { type: 'string' },
  format: { type: 'string', default: 'jsonl' },
  query: { type: 'string' },
  filter: { type: 'string' },
  'sort-by': { type: 'string' },
  out: { type: 'string' },
} as const;

function parseJsonOption(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`--${name} is not JSON: ${text}`);
  }
}

function parseExportArgs(args: string[]): CallsExportReq & { out?: string } {
  let values;
  try {
    values = parseArgs({ args, options: OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (!values.project) throw new UsageError(`export needs --project entity/project\n${USAGE}`);
  if (values.format !== 'jsonl' && values.format !== 'csv') throw new UsageError('--format is jsonl or csv');
  const query = parseJsonOption('query', values.query) as CallsExportReq['query'];
  return {
    project_id: values.project,
    format: values.format,
    // `--query '{"$expr": …}'` or just the expression
    query: query && typeof query === 'object' && !('$expr' in query) ? ({ $expr: query } as never) : query,
    filter: parseJsonOption('filter', values.filter) as CallsExportReq['filter'],
    sort_by: parseJsonOption('sort-by', values['sort-by']) as CallsExportReq['sort_by'],
    out: values.out,
  };
}

/**
 * `heddle export`: reads the store directly, like `keys` (no server or key needed; whoever can
 * open the database can read it all). Output goes to --out or stdout with backpressure; the store
 * used and the line count go to stderr. The query and filter are validated as the HTTP API does.
 */
export async function exportCommand(config: Config, args: string[]): Promise<void> {
  const { out, ...req } = parseExportArgs(args);
  const store = await openStore(config);
  try {
    const access = new ProjectAccess(store);
    const queries = new CallQueryService(
      store,
      access,
      new StorePriceLookup(store.costs),
      new FeedbackService(store, access, new AuditLog(store, access)),
    );
    // a bad project id, query or filter is the operator's to fix: its message, exit code 2
    const result = await new CallExportService(queries).callsExport(OPERATOR, req).catch((error: unknown) => {
      throw error instanceof AppError && error.status < 500 ? new UsageError(error.message) : error;
    });
    process.stderr.write(`store: ${describeStore(config)}\n`);
    let count = 0;
    async function* counted(): AsyncGenerator<string> {
      for await (const line of result.lines) {
        count += 1;
        yield line;
      }
    }
    const target = out === undefined ? process.stdout : fs.createWriteStream(out);
    await pipeline(Readable.from(counted(), { objectMode: false }), target, { end: out !== undefined });
    const calls = result.format === 'csv' ? Math.max(0, count - 1) : count;
    process.stderr.write(`exported ${calls} calls of ${req.project_id}${out === undefined ? '' : ` to ${out}`}\n`);
  } finally {
    await store.close();
  }
}
