import type { ProjectDataStore, ProjectDumpRow, ProjectRowCounts } from '../project-data-types.js';
import { MIGRATIONS } from './migrations/index.js';
import { ProjectTransfer, type TransferDialect } from './project-transfer.js';
import { PROJECT_TABLES } from './project-tables.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';
import { run, type TxRunner } from './core/sql-tx.js';

/**
 * Project-wide reads and the project deletion (docs/export.md "Project deletion"), written once over
 * the transaction runner: on SQLite each batch is one short transaction of the writer thread, taking
 * its turn between ingest commits; on PostgreSQL each batch is its own transaction holding row locks
 * on at most `batchRows` rows of one project, so writers of other projects never wait for it.
 */
export class SqlProjectDataStore implements ProjectDataStore {
  readonly schemaVersion = MIGRATIONS.at(-1)?.id ?? 0;
  readonly #transfer: ProjectTransfer;

  constructor(
    private readonly tx: TxRunner,
    private readonly d: SqlDialect,
    /** Rows per transaction when the caller does not say: about 25 ms of the SQLite writer, longer is fine on PostgreSQL. */
    private readonly batchRows: number,
    transfer: TransferDialect,
    /** The store's per-project tables (project-tables.ts `projectTables`). */
    private readonly tables: ReadonlyArray<{ table: string; key: readonly string[] }> = PROJECT_TABLES,
  ) {
    this.#transfer = new ProjectTransfer(tx, d, transfer);
  }

  exportRows(projectId: string): AsyncIterable<ProjectDumpRow> {
    return this.#transfer.exportRows(projectId);
  }

  importRows(projectId: string, rows: AsyncIterable<ProjectDumpRow>): Promise<ProjectRowCounts> {
    return this.#transfer.importRows(projectId, rows);
  }

  async rowCounts(projectId: string): Promise<ProjectRowCounts> {
    const counts: ProjectRowCounts = {};
    for (const { table } of this.tables) {
      const p = new SqlParams(this.d);
      const sql = `SELECT COUNT(*) AS n FROM ${table} WHERE project_id = ${p.add(projectId)}`;
      const [row] = await this.tx.read<{ n: number | string }>({ sql, params: p.values });
      counts[table] = Number(row?.n ?? 0);
    }
    return counts;
  }

  async deleteProject(projectId: string, opts: { batchRows?: number } = {}): Promise<ProjectRowCounts> {
    const batch = opts.batchRows ?? this.batchRows;
    const deleted: ProjectRowCounts = {};
    // the roll-up's pending changes first (PostgreSQL): a fold in flight holds them locked and adds
    // them to the roll-up rows when it commits, so those are deleted after it, never before
    const pendingFirst = [...this.tables].sort(
      (a, b) => Number(b.table === 'call_rollup_pending') - Number(a.table === 'call_rollup_pending'),
    );
    for (const { table, key } of pendingFirst) {
      // the key (which starts with project_id, except training_ids') walks the primary-key index:
      // each batch finds its rows without scanning those deleted before
      const p = new SqlParams(this.d);
      const project = p.add(projectId);
      const cols = key.join(', ');
      const sql =
        `DELETE FROM ${table} WHERE project_id = ${project} AND (${cols}) IN ` +
        `(SELECT ${cols} FROM ${table} WHERE project_id = ${project} LIMIT ${p.add(batch)})`;
      let total = 0;
      for (;;) {
        const n = await this.tx.transaction(() => run({ sql, params: p.values }));
        total += n;
        if (n < batch) break;
      }
      deleted[table] = total;
    }
    return deleted;
  }
}
