import type Database from 'better-sqlite3';
import { collectDescendants } from '../../domain/call-tree.js';
import { compileCallsCount, compileCallsSelect, type CompiledSql } from '../sql/calls-select.js';
import type { CallPart, CallRow, CallsQuery, CallStore } from '../types.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { ReadPool } from './read-pool.js';
import { bindNamed, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

const START_SQL = `
  INSERT INTO calls (project_id, id, op_name, op_display_name, display_name, trace_id, parent_id, thread_id, turn_id,
                     started_at, attributes, inputs, otel_dump, wb_user_id, wb_run_id, wb_run_step)
  VALUES (@project_id, @id, @op_name, @op_display_name, @display_name, @trace_id, @parent_id, @thread_id, @turn_id,
          @started_at, @attributes, @inputs, @otel_dump, @wb_user_id, @wb_run_id, @wb_run_step)
  ON CONFLICT (project_id, id) DO UPDATE SET
    op_name = excluded.op_name, op_display_name = excluded.op_display_name,
    display_name = COALESCE(excluded.display_name, calls.display_name),
    trace_id = excluded.trace_id, parent_id = excluded.parent_id, thread_id = excluded.thread_id, turn_id = excluded.turn_id,
    started_at = excluded.started_at, attributes = excluded.attributes, inputs = excluded.inputs, otel_dump = excluded.otel_dump,
    wb_user_id = excluded.wb_user_id, wb_run_id = excluded.wb_run_id, wb_run_step = excluded.wb_run_step`;

const END_SQL = `
  INSERT INTO calls (project_id, id, ended_at, exception, output, summary, wb_run_step_end)
  VALUES (@project_id, @id, @ended_at, @exception, @output, @summary, @wb_run_step_end)
  ON CONFLICT (project_id, id) DO UPDATE SET
    ended_at = excluded.ended_at, exception = excluded.exception, output = excluded.output,
    summary = excluded.summary, wb_run_step_end = excluded.wb_run_step_end`;

const UPDATE_SQL = `
  INSERT INTO calls (project_id, id, display_name) VALUES (@project_id, @id, @display_name)
  ON CONFLICT (project_id, id) DO UPDATE SET display_name = excluded.display_name`;

const TOMBSTONE_SQL = `
  INSERT INTO calls (project_id, id, deleted_at) VALUES (?, ?, ?)
  ON CONFLICT (project_id, id) DO UPDATE SET deleted_at = COALESCE(calls.deleted_at, excluded.deleted_at)`;

export class SqliteCallStore implements CallStore {
  /** Rows written since the planner statistics were last refreshed, and the next refresh point. */
  #rowsSinceAnalyze = 0;
  #analyzeAfter = 10_000;
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  write(parts: CallPart[]): Promise<void> {
    this.#noteRowsWritten(parts.length);
    return this.writer.submit((db) => {
      const start = this.#prepare(db, START_SQL);
      const end = this.#prepare(db, END_SQL);
      const update = this.#prepare(db, UPDATE_SQL);
      for (const part of parts) {
        if (part.kind === 'start') {
          const { kind: _kind, ...row } = part;
          start.run(row);
        } else if (part.kind === 'end') {
          const { kind: _kind, ...row } = part;
          end.run(row);
        } else {
          update.run({ project_id: part.project_id, id: part.id, display_name: part.display_name });
        }
      }
    });
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
    return this.reads.use((db) => (this.#prepare(db, compiled.sql).get(bindNamed(compiled.params)) as CallRow | undefined) ?? null);
  }

  query(q: CallsQuery): AsyncIterable<CallRow> {
    // compile eagerly so invalid queries fail before the caller starts streaming
    const compiled = compileCallsSelect(q, sqliteDialect);
    return this.#stream(compiled);
  }

  async *#stream(compiled: CompiledSql): AsyncGenerator<CallRow> {
    const db = await this.reads.acquire();
    const rows = this.#prepare(db, compiled.sql).iterate(bindNamed(compiled.params)) as IterableIterator<CallRow>;
    try {
      for (const row of rows) yield row;
    } finally {
      rows.return?.();
      this.reads.release(db);
    }
  }

  async count(q: CallsQuery): Promise<{ count: number; total_storage_size_bytes: number | null }> {
    const compiled = compileCallsCount(q, sqliteDialect);
    return this.reads.use(
      (db) => this.#prepare(db, compiled.sql).get(bindNamed(compiled.params)) as { count: number; total_storage_size_bytes: number | null },
    );
  }

  deleteCascade(projectId: string, ids: string[], deletedAt: number): Promise<number> {
    return this.writer.submit((db) => {
      const requested = [...new Set(ids)];
      const collected = new Set(requested);
      const placeholders = requested.map(() => '?').join(', ');
      const traces = db
        .prepare(`SELECT DISTINCT trace_id FROM calls WHERE project_id = ? AND id IN (${placeholders})
                  AND started_at IS NOT NULL AND deleted_at IS NULL`)
        .all(projectId, ...requested) as { trace_id: string }[];
      if (traces.length > 0) {
        const tracePlaceholders = traces.map(() => '?').join(', ');
        const live = db
          .prepare(`SELECT id, parent_id FROM calls WHERE project_id = ? AND trace_id IN (${tracePlaceholders})
                    AND started_at IS NOT NULL AND deleted_at IS NULL`)
          .all(projectId, ...traces.map((t) => t.trace_id)) as { id: string; parent_id: string | null }[];
        collectDescendants(collected, live);
      }
      const tombstone = this.#prepare(db, TOMBSTONE_SQL);
      for (const id of collected) tombstone.run(projectId, id, deletedAt);
      return collected.size;
    });
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
    const indexes = await this.writer.submit(
      (db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls'").pluck().all() as string[],
    );
    for (const index of indexes) {
      await this.writer.submit((db) => {
        db.pragma('analysis_limit = 0');
        db.exec(`ANALYZE "${index.replace(/"/g, '""')}"`);
      });
    }
  }

  #prepare(db: Database.Database, sql: string): Database.Statement {
    return this.#statements.get(db, sql);
  }
}
