import { InvalidRequestError } from '../../errors/app-error.js';
import type { ProjectDumpRow, ProjectRowCounts } from '../project-data-types.js';
import type { CompiledSql } from './core/sql-tag.js';
import { PROJECT_TABLES } from './project-tables.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';
import { runAll, type TxRunner } from './core/sql-tx.js';

/** A column of a per-project table as the adapter's catalogue describes it. */
export interface ColumnInfo {
  name: string;
  /** Declared type, lower case (`text`, `jsonb`, `bigint`, `blob`, `bytea` …). */
  type: string;
  /** Filled by the database itself (an identity column): never exported or inserted. */
  generated: boolean;
}

/** How an adapter describes its tables and JSON for the transfer. */
export interface TransferDialect {
  /** Rows `{name, type, generated}` of the table's columns, in order. */
  columns(table: string): CompiledSql;
  /** The compact text of a stored JSON column value (PostgreSQL prints JSONB with spaces). */
  compactJson?(text: string): string;
  /** Statements to run after inserting rows of `table`, in the same transaction (SQLite counts imported calls). */
  afterInsert?(table: string, projectId: string, keys: unknown[]): CompiledSql[];
  /** Runs before a project's rows are read for export (PostgreSQL folds its pending roll-up changes). */
  beforeExport?(projectId: string): Promise<void>;
}

/** Columns that only mean something inside one store: the live tail's write order (ui-schema.ts). */
const LOCAL_COLUMNS: ReadonlySet<string> = new Set(['calls.change_seq']);
/**
 * Tables derived from `calls` by triggers (migration 016): the import's calls rebuild them, so they
 * are neither exported nor imported (imported counters would count every call twice). The marks of
 * the substring index (migration 017) are the position of this store's indexer: the import removes
 * the project's mark instead (call-indexes/backfill.ts `indexImportedCalls`), and the indexer writes
 * the latency, status and token entries (migrations 019, 020, 022) of the imported calls again, and
 * the cost entries (migration 024), the roots' token, latency and status entries (migrations 025,
 * 028, 030) and
 * the trace-name and op-name entries (migrations 026, 029) of the whole project (the import removes its generation and
 * its fills).
 */
export const DERIVED_TABLES: ReadonlySet<string> = new Set([
  'call_counts',
  'call_text_marks',
  'call_latency',
  'call_status',
  'call_status_roots',
  'call_display',
  'call_tokens',
  'call_cost',
  'call_cost_gens',
  'call_token_roots',
  'call_latency_roots',
  'call_entry_fills',
  'call_trace_names',
  'call_op_names',
]);
/** Rows per page and per insert batch; tables holding bytes use small pages (file chunks are up to a MiB). */
const PAGE_ROWS = 1_000;
const BYTES_PAGE_ROWS = 16;
/** Bound parameters per INSERT statement (under SQLite's 32,766 and PostgreSQL's 65,535). */
const PARAMS_PER_INSERT = 10_000;
/** A batch is flushed at this many rows or about this many bytes of values. */
const BATCH_BYTES = 8 * 1024 * 1024;

const isBytes = (c: ColumnInfo): boolean => c.type.includes('blob') || c.type.includes('bytea');
const isJson = (c: ColumnInfo): boolean => c.type.includes('json');

function approxBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Buffer.isBuffer(value)) return value.length;
  return 8;
}

/**
 * The whole-project export and import (docs/export.md "Whole-project export and import") written
 * once over the transaction runner: the tables of PROJECT_TABLES, read in keyset pages along their
 * primary keys and written in multi-row INSERTs, one transaction per batch.
 */
export class ProjectTransfer {
  readonly #columns = new Map<string, Promise<ColumnInfo[]>>();

  constructor(
    private readonly tx: TxRunner,
    private readonly d: SqlDialect,
    private readonly td: TransferDialect,
  ) {}

  /** The portable columns of a table (cached: the schema does not change while the store is open). */
  columns(table: string): Promise<ColumnInfo[]> {
    let cached = this.#columns.get(table);
    if (cached === undefined) {
      cached = this.tx.read<Record<string, unknown>>(this.td.columns(table)).then((rows) =>
        rows
          .map((r) => ({
            name: String(r.name),
            type: String(r.type).toLowerCase(),
            generated: r.generated === true || Number(r.generated) === 1,
          }))
          .filter((c) => !c.generated && !LOCAL_COLUMNS.has(`${table}.${c.name}`)),
      );
      this.#columns.set(table, cached);
    }
    return cached;
  }

  async *exportRows(projectId: string): AsyncGenerator<ProjectDumpRow> {
    await this.td.beforeExport?.(projectId);
    // `projects` first: an import that stops early has still recorded the project
    for (const { table, key } of [...PROJECT_TABLES].reverse()) {
      if (DERIVED_TABLES.has(table)) continue;
      const columns = await this.columns(table);
      const json = this.td.compactJson ? columns.filter(isJson).map((c) => c.name) : [];
      const pageRows = columns.some(isBytes) ? BYTES_PAGE_ROWS : PAGE_ROWS;
      const rest = key.filter((k) => k !== 'project_id');
      let after: unknown[] | null = null;
      for (;;) {
        const p = new SqlParams(this.d);
        let sql = `SELECT ${columns.map((c) => c.name).join(', ')} FROM ${table} WHERE project_id = ${p.add(projectId)}`;
        if (after !== null) sql += ` AND (${rest.join(', ')}) > (${after.map((v) => p.add(v)).join(', ')})`;
        if (rest.length > 0) sql += ` ORDER BY ${rest.join(', ')}`;
        sql += ` LIMIT ${p.add(pageRows)}`;
        const rows = await this.tx.read<Record<string, unknown>>({ sql, params: p.values });
        for (const row of rows) {
          for (const name of json) if (typeof row[name] === 'string') row[name] = this.td.compactJson!(row[name]);
          yield { table, row };
        }
        const last = rows.at(-1);
        if (last === undefined || rows.length < pageRows || rest.length === 0) break;
        after = rest.map((k) => last[k]);
      }
    }
  }

  async importRows(projectId: string, rows: AsyncIterable<ProjectDumpRow>): Promise<ProjectRowCounts> {
    const counts: ProjectRowCounts = {};
    const known = new Set(PROJECT_TABLES.map((t) => t.table));
    let batch: ProjectDumpRow[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const table = batch[0]!.table;
      counts[table] = (counts[table] ?? 0) + (await this.#insert(table, batch));
      batch = [];
      bytes = 0;
    };
    for await (const item of rows) {
      if (!known.has(item.table)) throw new InvalidRequestError(`Unknown per-project table ${item.table}`);
      if (DERIVED_TABLES.has(item.table)) continue;
      if (item.row.project_id !== projectId)
        throw new InvalidRequestError(
          `A row of ${item.table} belongs to ${String(item.row.project_id)}, not ${projectId}`,
        );
      if (batch.length > 0 && (batch[0]!.table !== item.table || batch.length >= PAGE_ROWS || bytes >= BATCH_BYTES))
        await flush();
      batch.push(item);
      for (const value of Object.values(item.row)) bytes += approxBytes(value);
    }
    await flush();
    return counts;
  }

  /** One transaction: the batch's rows in INSERTs of up to PARAMS_PER_INSERT values. */
  async #insert(table: string, batch: ProjectDumpRow[]): Promise<number> {
    const columns = await this.columns(table);
    const names = new Set(columns.map((c) => c.name));
    const used = new Set<string>();
    for (const { row } of batch) for (const name of Object.keys(row)) used.add(name);
    const unknown = [...used].filter((n) => !names.has(n));
    if (unknown.length > 0)
      throw new InvalidRequestError(`Table ${table} of this server has no column ${unknown.join(', ')}`);
    const cols = columns.map((c) => c.name).filter((n) => used.has(n));
    const perStatement = Math.max(1, Math.floor(PARAMS_PER_INSERT / cols.length));
    const statements: CompiledSql[] = [];
    for (let i = 0; i < batch.length; i += perStatement) {
      const params: unknown[] = [];
      // no casts: the target column's type decides (JSON text into JSONB, bytes into bytea)
      const tuples = batch.slice(i, i + perStatement).map(({ row }) => {
        const placeholders = cols.map((c) => {
          params.push(row[c] ?? null);
          return this.d.placeholder(params.length);
        });
        return `(${placeholders.join(', ')})`;
      });
      statements.push({ sql: `INSERT INTO ${table} (${cols.join(', ')}) VALUES ${tuples.join(', ')}`, params });
    }
    const projectId = batch[0]!.row.project_id as string;
    const after =
      this.td.afterInsert?.(
        table,
        projectId,
        batch.map(({ row }) => row.id),
      ) ?? [];
    const changed = await this.tx.transaction(function* () {
      return yield* runAll([...statements, ...after]);
    });
    return changed.slice(0, statements.length).reduce((a, b) => a + b, 0);
  }
}
