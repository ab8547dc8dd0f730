import type Database from 'better-sqlite3';
import { compileCallsCount, compileCallsSelect, type IndexState } from '../sql/calls-query/select.js';
import type { CallChangeCursor, CallPart, CallRow, CallsQuery, CallStore } from '../types.js';
import { callPartRow } from './call-writes.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { ReadPool } from './read-pool.js';
import { bindNamed, RowStatementCache, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

/** Rows written before the first refresh of the planner statistics of a store without them. */
const FIRST_ANALYZE_AFTER = 10_000;

export class SqliteCallStore implements CallStore {
  /** Rows written since the planner statistics were last refreshed, and the next refresh point. */
  #rowsSinceAnalyze = 0;
  #analyzeAfter = FIRST_ANALYZE_AFTER;
  #checkingStatistics = false;
  readonly #statements = new StatementCache();
  readonly #rowStatements = new RowStatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
    /** Which indexes a project's queries may read (calls-query/select.ts IndexState). */
    private readonly indexed: (projectId: string) => Promise<IndexState>,
  ) {}

  write(parts: CallPart[]): Promise<void> {
    this.#noteRowsWritten(parts.length);
    return this.writer.submit('calls.write', parts.map(callPartRow));
  }

  async read(
    projectId: string,
    id: string,
    opts: { include_storage_size?: boolean; include_total_storage_size?: boolean } = {},
  ): Promise<CallRow | null> {
    const compiled = compileCallsSelect(
      { project_id: projectId, filter: { call_ids: [id] }, limit: 1, ...opts },
      sqliteDialect,
    );
    return this.reads.use(
      (db) => (this.#prepare(db, compiled.sql).get(bindNamed(compiled.params)) as CallRow | undefined) ?? null,
    );
  }

  query(q: CallsQuery): AsyncIterable<CallRow> {
    // compile eagerly so invalid queries fail before the caller starts streaming
    compileCallsSelect(q, sqliteDialect);
    return this.#stream(q);
  }

  async *#stream(q: CallsQuery): AsyncGenerator<CallRow> {
    const compiled = compileCallsSelect(q, sqliteDialect, await this.indexed(q.project_id));
    const db = await this.reads.acquire();
    const { statement, toRow } = this.#rowStatements.get(db, compiled.sql);
    const rows = statement.iterate(bindNamed(compiled.params)) as IterableIterator<unknown[]>;
    try {
      for (const values of rows) yield toRow(values) as unknown as CallRow;
    } finally {
      rows.return?.();
      this.reads.release(db);
    }
  }

  async count(q: CallsQuery): Promise<{ count: number; total_storage_size_bytes: number | null }> {
    const compiled = compileCallsCount(q, sqliteDialect, await this.indexed(q.project_id));
    return this.reads.use(
      (db) =>
        this.#prepare(db, compiled.sql).get(bindNamed(compiled.params)) as {
          count: number;
          total_storage_size_bytes: number | null;
        },
    );
  }

  deleteCascade(projectId: string, ids: string[], deletedAt: number): Promise<number> {
    return this.writer.submit('calls.deleteCascade', { projectId, ids, deletedAt });
  }

  async changeHead(): Promise<CallChangeCursor> {
    const value = await this.reads.use(
      (db) => this.#prepare(db, "SELECT value FROM change_counters WHERE name = 'calls'").pluck().get() as number,
    );
    // the next write is stamped value + 1 (call-writes.ts), and every id sorts after ''
    return { seq: value + 1, id: '' };
  }

  /**
   * Without statistics SQLite cannot tell a selective op-name index range from a long walk in
   * start order, and first pages of rare ops or `:*` wildcards take hundreds of milliseconds on
   * large projects. Statistics are refreshed when the rows written since the last refresh reach
   * the rows they describe (the table has about doubled), so their cost vanishes as the table
   * grows; a new process on a large store does not refresh them after its first few writes.
   */
  #noteRowsWritten(count: number): void {
    this.#rowsSinceAnalyze += count;
    if (this.#rowsSinceAnalyze < this.#analyzeAfter || this.#checkingStatistics) return;
    this.#checkingStatistics = true;
    void this.#refreshIfStale()
      .catch(() => undefined)
      .finally(() => (this.#checkingStatistics = false));
  }

  async #refreshIfStale(): Promise<void> {
    const described = await this.#rowsInStatistics();
    if (this.#rowsSinceAnalyze < described) {
      this.#analyzeAfter = described;
      return;
    }
    this.#rowsSinceAnalyze = 0;
    await this.#refreshStatistics();
    this.#analyzeAfter = Math.max(FIRST_ANALYZE_AFTER, await this.#rowsInStatistics());
  }

  /** The largest row count the planner statistics of `calls` hold (0 without statistics). */
  #rowsInStatistics(): Promise<number> {
    return this.reads.use((db) => {
      const hasStats = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get() !== undefined;
      if (!hasStats) return 0;
      // each `stat` starts with the number of rows of the index
      const rows = db
        .prepare("SELECT MAX(CAST(stat AS INTEGER)) FROM sqlite_stat1 WHERE tbl = 'calls'")
        .pluck()
        .get() as number | null;
      return rows ?? 0;
    });
  }

  /**
   * Full statistics, one index per writer turn (about 0.1–0.3 s each at a million calls), so no
   * single pause is long. Sampled statistics (`analysis_limit`) only see the first rows of each
   * index and misjudge how many calls a project or an op has.
   */
  async #refreshStatistics(): Promise<void> {
    const indexes = await this.writer.submit('calls.indexNames');
    for (const index of indexes) await this.writer.submit('calls.analyzeIndex', index);
  }

  #prepare(db: Database.Database, sql: string): Database.Statement {
    return this.#statements.get(db, sql);
  }
}
