import { digestValue, tableDigest } from '../domain/digest.js';
import { isJsonObject, toPlainJson, type JsonValue } from '../domain/json-value.js';
import { nowMicros } from '../domain/time.js';
import { findBadRef } from '../domain/value-refs.js';
import { RequestValidationError } from '../errors/app-error.js';
import { DigestMismatchError, ObjectInvalidRequestError, ObjectNotFoundError } from '../errors/object-errors.js';
import type * as S from '../schemas/tables.js';
import type { TableRowInsert, TableSortKey, TableStore, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/** A hashed row: its digest and the canonical text (§1.4). Rows with malformed refs are refused (§5.5). */
function hashRow(row: unknown, loc: string[]): TableRowInsert {
  // number literals arrive as objects from the lossless parser, so the schema cannot tell them from rows
  if (!isJsonObject(row))
    throw new RequestValidationError([
      { loc, msg: 'Input should be a valid dictionary', type: 'dict_type', input: toPlainJson(row) },
    ]);
  const bad = findBadRef(row);
  if (bad?.kind === 'internal')
    throw new ObjectInvalidRequestError('Encountered unexpected internal ref format.', 'InvalidInternalRef');
  if (bad) throw new ObjectInvalidRequestError(`Invalid URI: ${bad.value}`, 'InvalidExternalRef');
  const { digest, canonical } = digestValue(row as JsonValue);
  return { digest, val: canonical };
}

/** §4.4: `"a.b.0"` → `["a","b","0"]`; an empty field, a leading/trailing dot or `..` is a 400. */
export function parseSortField(field: string): string[] {
  const parts = field.split('.');
  if (parts.some((part) => part === ''))
    throw new ObjectInvalidRequestError(`Invalid sort field: ${JSON.stringify(field)}`, 'ValueError');
  return parts;
}

/** One row of `/table/query` as JSON text; `val` is the stored canonical text spliced verbatim (keeps `1.0`). */
export function tableRowJson(row: { digest: string; val: string; original_index: number }): string {
  return `{"digest":${JSON.stringify(row.digest)},"val":${row.val},"original_index":${row.original_index}}`;
}

/** Tables (docs/spec/objects.md §4). */
export class TableService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  get #tables(): TableStore {
    return this.store.tables;
  }

  async create(caller: Caller, req: S.TableCreateReq): Promise<{ digest: string; row_digests: string[] }> {
    const { project_id: projectId, rows, expected_digest: expected } = req.table;
    this.access.assertCanRead(caller, projectId);
    const hashed = rows.map((row, i) => hashRow(row, ['body', 'table', 'rows', String(i)]));
    const rowDigests = hashed.map((row) => row.digest);
    const digest = tableDigest(rowDigests);
    if (expected != null && expected !== digest) throw new DigestMismatchError('table', expected, digest);
    await this.access.assertCanWrite(caller, projectId);
    await this.#tables.create(projectId, digest, rowDigests, dedupe(hashed), nowMicros());
    return { digest, row_digests: rowDigests };
  }

  async createFromDigests(caller: Caller, req: S.TableCreateFromDigestsReq): Promise<{ digest: string }> {
    this.access.assertCanRead(caller, req.project_id);
    const digest = tableDigest(req.row_digests);
    if (req.expected_digest != null && req.expected_digest !== digest)
      throw new DigestMismatchError('table', req.expected_digest, digest);
    await this.access.assertCanWrite(caller, req.project_id);
    // Our choice (issue 17, docs/spec/objects.md §4.2): a table of rows the project does not hold would be
    // counted by /table/query_stats but return nothing from /table/query, so it is refused
    const missing = await this.#tables.missingRows(req.project_id, req.row_digests);
    if (missing.length > 0) {
      const shown = missing.slice(0, 10).join(', ');
      throw new ObjectInvalidRequestError(
        `Unknown row digests in project ${req.project_id} (${missing.length}): ${shown}${missing.length > 10 ? ', …' : ''}`,
      );
    }
    await this.#tables.create(req.project_id, digest, req.row_digests, [], nowMicros());
    return { digest };
  }

  /** §4.3: updates apply in order to the evolving row list; the base table stays as it is. */
  async update(caller: Caller, req: S.TableUpdateReq): Promise<{ digest: string; updated_row_digests: string[] }> {
    await this.access.assertCanWrite(caller, req.project_id);
    const current = await this.#tables.rowDigests(req.project_id, req.base_digest);
    if (current === null) throw new ObjectNotFoundError(`Table ${req.base_digest} not found`);
    const newRows: TableRowInsert[] = [];
    const updated: string[] = [];
    for (const [n, spec] of req.updates.entries()) {
      const ops = ['append', 'pop', 'insert'].filter((op) => op in spec);
      if (ops.length !== 1)
        throw new ObjectInvalidRequestError('Each update must name exactly one of append, pop, insert', 'ValueError');
      if ('append' in spec) {
        const row = hashRow(spec.append.row, ['body', 'updates', String(n), 'append', 'row']);
        newRows.push(row);
        current.push(row.digest);
        updated.push(row.digest);
      } else if ('pop' in spec) {
        const index = spec.pop.index;
        if (index < 0 || index >= current.length)
          throw new ObjectInvalidRequestError('Index out of range', 'ValueError');
        updated.push(current.splice(index, 1)[0]!);
      } else {
        const index = spec.insert.index;
        if (index < 0 || index > current.length)
          throw new ObjectInvalidRequestError('Index out of range', 'ValueError');
        const row = hashRow(spec.insert.row, ['body', 'updates', String(n), 'insert', 'row']);
        newRows.push(row);
        current.splice(index, 0, row.digest);
        updated.push(row.digest);
      }
    }
    const digest = tableDigest(current);
    await this.#tables.create(req.project_id, digest, current, dedupe(newRows), nowMicros());
    return { digest, updated_row_digests: updated };
  }

  /** §4.4: the rows as JSON text lines (no newline), streamed from the store. */
  async queryLines(caller: Caller, req: S.TableQueryReq): Promise<AsyncIterable<string>> {
    this.access.assertCanRead(caller, req.project_id);
    if (req.limit != null && req.limit < 0)
      throw new ObjectInvalidRequestError('limit must be non-negative', 'ValueError');
    if (req.offset != null && req.offset < 0)
      throw new ObjectInvalidRequestError('offset must be non-negative', 'ValueError');
    const sortBy: TableSortKey[] = (req.sort_by ?? []).map((key) => ({
      path: parseSortField(key.field),
      direction: key.direction,
    }));
    const rows = this.#tables.query({
      project_id: req.project_id,
      digest: req.digest,
      row_digests: req.filter?.row_digests ?? null,
      sort_by: sortBy,
      limit: req.limit ?? null,
      offset: req.offset ?? null,
    });
    return (async function* lines() {
      for await (const row of rows) yield tableRowJson(row);
    })();
  }

  /** `{"rows": [...]}` as JSON text. */
  async query(caller: Caller, req: S.TableQueryReq): Promise<string> {
    const parts: string[] = [];
    for await (const line of await this.queryLines(caller, req)) parts.push(line);
    return `{"rows":[${parts.join(',')}]}`;
  }

  async queryStats(caller: Caller, req: S.TableQueryStatsReq): Promise<{ count: number }> {
    this.access.assertCanRead(caller, req.project_id);
    const [stats] = await this.#tables.stats(req.project_id, [req.digest], false);
    return { count: stats?.count ?? 0 };
  }

  async queryStatsBatch(
    caller: Caller,
    req: S.TableQueryStatsBatchReq,
  ): Promise<{ tables: Array<{ count: number; digest: string; storage_size_bytes: number | null }> }> {
    this.access.assertCanRead(caller, req.project_id);
    const stats = await this.#tables.stats(req.project_id, req.digests ?? [], req.include_storage_size === true);
    return {
      tables: stats.map((s) => ({ count: s.count, digest: s.digest, storage_size_bytes: s.storage_size_bytes })),
    };
  }
}

/** Each row body once (a table may repeat a row). */
function dedupe(rows: TableRowInsert[]): TableRowInsert[] {
  const seen = new Map<string, TableRowInsert>();
  for (const row of rows) seen.set(row.digest, row);
  return [...seen.values()];
}
