import { collectDescendants } from '../../domain/call-tree.js';
import type pg from 'pg';
import Cursor from 'pg-cursor';
import { FIRST_CURSOR_BATCH, nextCursorBatchAfter } from './cursor-batch.js';
import { compileCallsCount, compileCallsSelect, type IndexState } from '../sql/calls-query/select.js';
import type { CompiledSql } from '../sql/core/sql-tag.js';
import type { CallChangeCursor, CallPart, CallRow, CallsQuery, CallStore } from '../types.js';
import type { CallWriter } from './call-writer.js';
import { postgresDialect } from './postgres-dialect.js';
import { compactJsonText, compactParams, mapErrors, mapPgError, PG_TYPES } from './pg-support.js';
import { rolledUpWrite } from './rollup-writes.js';
import { inTransaction } from './transaction.js';
import type { ReadPool } from './read-replicas.js';

/** Rows fetched per round trip while streaming; small enough to keep memory flat, large enough to amortise. */

const JSON_COLUMNS = ['attributes', 'inputs', 'otel_dump', 'output', 'summary'] as const;

/** JSON columns in the compact text the SQLite store returns (pg-support.ts compactJsonText). */
function toCallRow(row: CallRow): CallRow {
  for (const column of JSON_COLUMNS) {
    const value = row[column];
    if (typeof value === 'string') row[column] = compactJsonText(value);
  }
  return row;
}

function compile(compiled: CompiledSql): { text: string; values: unknown[] } {
  return compactParams(compiled.sql, compiled.params);
}

const TOMBSTONE_SQL = `
  INSERT INTO calls (project_id, id, deleted_at, rolled_up) SELECT $1::text, ids.id, $3::bigint, 1 FROM unnest($2::text[]) AS ids(id)
  ON CONFLICT (project_id, id) DO UPDATE SET deleted_at = COALESCE(calls.deleted_at, excluded.deleted_at), rolled_up = 1
  RETURNING project_id, id, started_at, deleted_at, op_name, ended_at, exception, summary::text AS summary,
    (xmax = 0) AS inserted`;

/** Calls on PostgreSQL: writes through the group-commit CallWriter, streaming reads through a server-side cursor. */
export class PostgresCallStore implements CallStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly writer: CallWriter,
    /** Reads outside a write: the primary, or a caught-up replica (read-replicas.ts). */
    private readonly reads: ReadPool,
    private readonly streamReads: ReadPool,
    /** Which indexes a project's queries may read (calls-query/select.ts IndexState). */
    private readonly indexed: (projectId: string) => Promise<IndexState>,
  ) {}

  write(parts: CallPart[]): Promise<void> {
    return this.writer.submit(parts);
  }

  async read(
    projectId: string,
    id: string,
    opts: { include_storage_size?: boolean; include_total_storage_size?: boolean } = {},
  ): Promise<CallRow | null> {
    const compiled = compile(
      compileCallsSelect({ project_id: projectId, filter: { call_ids: [id] }, limit: 1, ...opts }, postgresDialect),
    );
    const { rows } = await mapErrors(() => this.reads.query<CallRow>(compiled.text, compiled.values));
    return rows.length > 0 ? toCallRow(rows[0]!) : null;
  }

  query(q: CallsQuery): AsyncIterable<CallRow> {
    // compile eagerly so invalid queries fail before the caller starts streaming
    compileCallsSelect(q, postgresDialect);
    return this.#stream(q);
  }

  /**
   * A cursor on its own connection: rows arrive a batch at a time (nextCursorBatch) as the consumer
   * asks for them, so a large result is never held in memory. The connection returns to the pool when the
   * consumer finishes or stops early.
   */
  async *#stream(q: CallsQuery): AsyncGenerator<CallRow> {
    const compiled = compile(compileCallsSelect(q, postgresDialect, await this.indexed(q.project_id)));
    const client = await mapErrors(() => this.streamReads.connect());
    const cursor = client.query(new Cursor<CallRow>(compiled.text, compiled.values, { types: PG_TYPES }));
    let failure: unknown;
    // the connection may die while the consumer holds the stream between batches
    const onError = (error: Error): void => {
      failure ??= error;
    };
    client.on('error', onError);
    try {
      let batch = FIRST_CURSOR_BATCH;
      for (;;) {
        let rows: CallRow[];
        try {
          rows = await cursor.read(batch);
        } catch (error) {
          failure = error;
          throw mapPgError(error);
        }
        if (rows.length === 0) return;
        batch = nextCursorBatchAfter(rows);
        for (const row of rows) yield toCallRow(row);
      }
    } finally {
      // a failed cursor is not closed: on a dead connection close() waits forever for the server
      if (failure === undefined) {
        try {
          await cursor.close();
        } catch (error) {
          failure = error;
        }
      }
      client.off('error', onError);
      // a connection whose cursor failed may be in any state: drop it instead of reusing it
      client.release(failure instanceof Error ? failure : undefined);
    }
  }

  async count(q: CallsQuery): Promise<{ count: number; total_storage_size_bytes: number | null }> {
    const compiled = compile(compileCallsCount(q, postgresDialect, await this.indexed(q.project_id)));
    const { rows } = await mapErrors(() =>
      this.reads.query<{ count: number; total_storage_size_bytes: number | null }>(compiled.text, compiled.values),
    );
    return rows[0]!;
  }

  async changeHead(): Promise<CallChangeCursor> {
    const { rows } = await mapErrors(() =>
      this.pool.query<{ head: number }>(`SELECT ${postgresDialect.changeHorizon} AS head`),
    );
    // transactions at or above the horizon are still running or yet to start (types.ts changeHead)
    // SELECT without FROM always returns one row
    return { seq: rows[0]!.head, id: '' };
  }

  /**
   * One transaction: the live calls of the affected traces are read, the descendants collected
   * through parent links, and every collected id tombstoned (docs/spec/calls.md §3.1). Tombstones are
   * written in id order, the lock order of the call writer.
   */
  deleteCascade(projectId: string, ids: string[], deletedAt: number): Promise<number> {
    const requested = [...new Set(ids)];
    return inTransaction(this.pool, async (db) => {
      const live = await db.query<{ id: string; parent_id: string | null }>(
        `SELECT c.id, c.parent_id FROM calls c
         WHERE c.project_id = $1::text AND c.started_at IS NOT NULL AND c.deleted_at IS NULL
           AND c.trace_id IN (SELECT r.trace_id FROM calls r WHERE r.project_id = $1::text AND r.id = ANY($2::text[])
                              AND r.started_at IS NOT NULL AND r.deleted_at IS NULL)`,
        [projectId, requested],
      );
      const collected = new Set(requested);
      collectDescendants(collected, live.rows);
      const sorted = [...collected].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      // the call roll-up loses what the tombstoned calls added (rollup-writes.ts)
      const keys = sorted.map((id) => ({ project_id: projectId, id }));
      await rolledUpWrite(db, keys, async () => (await db.query(TOMBSTONE_SQL, [projectId, sorted, deletedAt])).rows);
      return collected.size;
    });
  }
}
