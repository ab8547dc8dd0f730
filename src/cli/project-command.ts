import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { ProjectAccess } from '../services/project-access.js';
import { ProjectTransferService } from '../services/project-transfer-service.js';
import { openStore } from './open-store.js';
import { describeStore } from './store-label.js';
import { USAGE, UsageError } from './usage.js';
import { OPERATOR } from './operator.js';
import { AuditLog } from '../services/audit-service.js';

const OPTIONS = {
  entity: { type: 'string' },
  project: { type: 'string' },
  out: { type: 'string' },
  in: { type: 'string' },
} as const;

/** Lines of a file (or stdin), pulled as the importer consumes them. */
async function* fileLines(input: NodeJS.ReadableStream): AsyncGenerator<string> {
  let pending = '';
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) yield line.replace(/\r$/, '');
  }
  if (pending !== '') yield pending;
}

/**
 * `heddle project export|import` (docs/export.md "Whole-project export and import"): the store is
 * opened directly, like `heddle export` (HEDDLE_DATA_DIR / HEDDLE_DATABASE_URL, no server or key).
 * The dump goes to --out or stdout, and comes from --in or stdin.
 */
export async function projectCommand(config: Config, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  let values;
  try {
    values = parseArgs({ args: rest, options: OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if ((sub !== 'export' && sub !== 'import') || !values.entity || !values.project)
    throw new UsageError(`project export|import needs --entity E --project P\n${USAGE}`);
  if (sub === 'export' && values.in !== undefined) throw new UsageError('--in is for project import');
  if (sub === 'import' && values.out !== undefined) throw new UsageError('--out is for project export');
  if (values.in !== undefined && !fs.existsSync(values.in)) throw new UsageError(`--in ${values.in}: no such file`);
  const { entity, project } = values;
  const store = await openStore(config);
  // a bad project, a refused dump: the operator's to fix, with the reason and exit code 2
  const asUsage = (error: unknown): never => {
    throw error instanceof AppError && error.status < 500 ? new UsageError(error.message) : error;
  };
  try {
    const access = new ProjectAccess(store);
    const service = new ProjectTransferService(store, access, new AuditLog(store, access));
    process.stderr.write(`store: ${describeStore(config)}\n`);
    if (sub === 'export') {
      const lines = await service.exportLines(OPERATOR, entity, project).catch(asUsage);
      let rows = -2;
      async function* counted(): AsyncGenerator<string> {
        for await (const line of lines) {
          rows += 1;
          yield line;
        }
      }
      const out = values.out;
      const target = out === undefined ? process.stdout : fs.createWriteStream(out);
      await pipeline(Readable.from(counted(), { objectMode: false }), target, { end: out !== undefined });
      process.stderr.write(`exported ${rows} rows of ${entity}/${project}${out === undefined ? '' : ` to ${out}`}\n`);
    } else {
      const input = values.in === undefined ? process.stdin : fs.createReadStream(values.in);
      const result = await service.importLines(OPERATOR, entity, project, fileLines(input)).catch(asUsage);
      process.stderr.write(`imported ${result.imported_rows} rows into ${result.project_id}\n`);
    }
  } finally {
    await store.close();
  }
}
