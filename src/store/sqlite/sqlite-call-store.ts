import type Database from 'better-sqlite3';
import { compileCallsCount, compileCallsSelect } from '../sql/calls-select.js';
import type { CallChangeCursor, CallPart, CallRow, CallsQuery, CallStore } from '../types.js';
import { callPartRow } from './call-writes.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { ReadPool } from './read-pool.js';
import { bindNamed, RowStatementCache, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';
import type { IndexState } from '../sql/calls-select.js';

export class SqliteCallStore implements CallStore {
  /** Rows written since the planner statistics were last refreshed, and the next refresh point. */
  #rowsSinceAnalyze = 0;
  #analyzeAfter = 10_000;
  readonly #statements = new StatementCache();
  readonly #rowStatements = new RowStatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
    /** Which indexes a project's queries may read (calls-select.ts IndexState). */
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
   * large projects. Statistics are refreshed each time the rows written by this process double,
   * so their cost vanishes as the table grows.
   */
  #noteRowsWritten(count: number): void {
    this.#rowsSinceAnalyze += count;
    if (this.#rowsSinceAnalyze < this.#analyzeAfter) return;
    this.#analyzeAfter *= 2;
    this.#rowsSinceAnalyze = 0;
    void this.#refreshStatistics().catch(() => undefined);
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
