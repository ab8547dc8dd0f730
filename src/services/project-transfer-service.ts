import { ConflictError, InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import { formatMicros, nowMicros } from '../domain/time.js';
import type { ProjectDumpRow, ProjectRowCounts, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { parseProjectId, type ProjectAccess } from './project-access.js';
import type { AuditLog } from './audit-service.js';

/** The first line's `format` and `version` (docs/export.md "Whole-project export and import"). */
export const DUMP_FORMAT = 'heddle-project-dump';
export const DUMP_VERSION = 1;

interface DumpHeader {
  format: string;
  version: number;
  project_id: string;
  schema_version: number;
  store: string;
  exported_at: string;
}

export interface ProjectImportResult {
  project_id: string;
  imported: ProjectRowCounts;
  imported_rows: number;
}

const sum = (counts: ProjectRowCounts): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Byte columns travel as `{"$base64": "…"}` (no other value of a dump is an object: JSON columns are text). */
function encodeValue(value: unknown): unknown {
  return Buffer.isBuffer(value) ? { $base64: value.toString('base64') } : value;
}

function decodeValue(value: unknown, where: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  const b64 = (value as { $base64?: unknown }).$base64;
  if (typeof b64 !== 'string' || Object.keys(value).length !== 1)
    throw new InvalidRequestError(`${where}: a value is an object other than {"$base64": "…"}`);
  return Buffer.from(b64, 'base64');
}

function parseLine(text: string, n: number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestError(`Line ${n} of the dump is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidRequestError(`Line ${n} of the dump is not a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * Whole-project export and import (docs/export.md "Whole-project export and import"): one JSON line
 * per row of every per-project table, between a header and a trailer, so a project moves between a
 * SQLite and a PostgreSQL Heddle with its rows (and so every digest) as they were. Readers of the
 * project may export it; importing needs membership of its entity and an empty project.
 */
export class ProjectTransferService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly audit: AuditLog,
  ) {}

  #projectId(caller: Caller, entity: string, project: string): string {
    const projectId = `${entity}/${project}`;
    parseProjectId(projectId);
    this.access.assertCanRead(caller, projectId);
    return projectId;
  }

  /** The dump's lines (each ending with "\n"), produced as they are read; 404 for a project with nothing stored. */
  async exportLines(caller: Caller, entity: string, project: string): Promise<AsyncIterable<string>> {
    const projectId = this.#projectId(caller, entity, project);
    if ((await this.store.auth.findProject(projectId)) === null)
      throw new NotFoundError(`Project ${projectId} not found`);
    const header: DumpHeader = {
      format: DUMP_FORMAT,
      version: DUMP_VERSION,
      project_id: projectId,
      schema_version: this.store.projectData.schemaVersion,
      store: this.store.kind,
      exported_at: formatMicros(nowMicros()),
    };
    const rows = this.store.projectData.exportRows(projectId);
    return (async function* () {
      yield `${JSON.stringify(header)}\n`;
      const counts: ProjectRowCounts = {};
      for await (const { table, row } of rows) {
        counts[table] = (counts[table] ?? 0) + 1;
        const encoded = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, encodeValue(v)]));
        yield `${JSON.stringify({ table, row: encoded })}\n`;
      }
      yield `${JSON.stringify({ end: true, rows: counts })}\n`;
    })();
  }

  /**
   * Imports a dump into the (empty) project of the same id, consuming `lines` as they arrive. A
   * dump that ends without its trailer, or whose trailer counts differ, is refused after its rows
   * were stored: delete the project and import again.
   */
  async importLines(
    caller: Caller,
    entity: string,
    project: string,
    lines: AsyncIterable<string>,
  ): Promise<ProjectImportResult> {
    const projectId = this.#projectId(caller, entity, project);
    // rows arrive with their digests as given: only those who administer the entity may import
    await this.access.assertAdministers(caller, entity, 'import a project');
    const existing = sum(await this.store.projectData.rowCounts(projectId));
    if (existing > 0)
      throw new ConflictError(
        `Project ${projectId} already holds ${existing} rows; an import needs an empty project (DELETE /projects/${projectId} first)`,
      );
    const iterator = lines[Symbol.asyncIterator]();
    let n = 0;
    const next = async (): Promise<Record<string, unknown> | null> => {
      for (;;) {
        const line = await iterator.next();
        if (line.done) return null;
        n += 1;
        if (line.value.trim() !== '') return parseLine(line.value, n);
      }
    };
    this.#checkHeader(await next(), projectId);
    let trailer: Record<string, unknown> | null = null;
    const rows = async function* (): AsyncGenerator<ProjectDumpRow> {
      for (let item = await next(); item !== null; item = await next()) {
        if (item.end === true) {
          trailer = item;
          if ((await next()) !== null) throw new InvalidRequestError(`Line ${n} follows the dump's trailer line`);
          return;
        }
        yield toRow(item, n);
      }
    };
    const imported = await this.store.projectData.importRows(projectId, rows());
    this.access.forget(projectId);
    const total = sum(imported);
    if (trailer === null)
      throw new InvalidRequestError(
        `The dump ends without its trailer line (cut short?); ${total} rows were imported: delete the project and import again`,
      );
    const expected = (trailer as { rows?: unknown }).rows;
    const expectedTotal =
      expected !== null && typeof expected === 'object' ? sum(expected as ProjectRowCounts) : Number.NaN;
    if (expectedTotal !== total)
      throw new InvalidRequestError(`The dump's trailer counts ${expectedTotal} rows but ${total} were imported`);
    await this.audit.record(caller, entity, 'project.imported', projectId, { rows: total });
    return { project_id: projectId, imported, imported_rows: total };
  }

  #checkHeader(header: Record<string, unknown> | null, projectId: string): void {
    if (header === null) throw new InvalidRequestError('The dump is empty');
    if (header.format !== DUMP_FORMAT || header.version !== DUMP_VERSION)
      throw new InvalidRequestError(`The first line is not a ${DUMP_FORMAT} header of version ${DUMP_VERSION}`);
    if (header.project_id !== projectId)
      throw new InvalidRequestError(
        `The dump holds project ${String(header.project_id)}; import it under that id (refs and digests name it)`,
      );
    const version = Number(header.schema_version);
    if (!(version <= this.store.projectData.schemaVersion))
      throw new InvalidRequestError(
        `The dump comes from schema version ${String(header.schema_version)}, newer than this server's ${this.store.projectData.schemaVersion}: upgrade this server first`,
      );
  }
}

const UNFINISHED = new Set(['queued', 'running']);

function toRow(item: Record<string, unknown>, n: number): ProjectDumpRow {
  const { table, row } = item as { table?: unknown; row?: unknown };
  if (typeof table !== 'string' || row === null || typeof row !== 'object' || Array.isArray(row))
    throw new InvalidRequestError(`Line ${n} of the dump is not {"table": …, "row": {…}}`);
  const decoded = Object.fromEntries(
    Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, decodeValue(v, `Line ${n}`)]),
  );
  // a job that was queued or running on the exporting server is not resumed on this one (its lease belongs there)
  if (table === 'background_jobs' && UNFINISHED.has(String(decoded.status))) {
    Object.assign(decoded, {
      status: 'failed',
      finished_at: nowMicros(),
      lease_owner: null,
      lease_expires_at: null,
      error_message: 'The job had not finished when its project was exported; it was not resumed after the import.',
    });
  }
  return { table, row: decoded };
}
