import type { FeedbackRow, FeedbackStore, FeedbackWindow, RecordQuery } from '../feedback-types.js';
import type { CompiledSql } from './core/sql-tag.js';
import { compileDeleteIds, compileInsert, compileRecordCount, compileRecordSelect, insertAll } from './record-sql.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';
import { run, type TxRunner } from './core/sql-tx.js';

/**
 * The feedback store (docs/spec/objects.md §7) written once over the transaction runner (core/sql-tx.ts) and a
 * dialect, so every adapter shares it. Table `feedback`, keyed (project_id, id).
 */

const FEEDBACK_JSON = [
  'payload',
  'scorer_tags',
  'scorer_tag_reasons',
  'scorer_tag_confidences',
  'scorer_ratings',
  'scorer_rating_reasons',
  'scorer_rating_confidences',
] as const;

/** Backends may hand JSON columns back parsed and big integers as strings; rows leave as the contract says. */
function feedbackFromDb(raw: Record<string, unknown>): FeedbackRow {
  const row = { ...raw } as Record<string, unknown>;
  for (const column of FEEDBACK_JSON)
    if (typeof row[column] !== 'string') row[column] = JSON.stringify(row[column] ?? null);
  row.created_at = Number(row.created_at);
  delete row.rn;
  return row as unknown as FeedbackRow;
}

export class SqlFeedbackStore implements FeedbackStore {
  /** `asJson` turns a bound JSON-text parameter into the backend's JSON column type (identity where text is JSON). */
  constructor(
    private readonly tx: TxRunner,
    private readonly d: SqlDialect,
    private readonly asJson: (sql: string) => string = (sql) => sql,
  ) {}

  #insert(row: FeedbackRow): CompiledSql {
    return compileInsert('feedback', row, this.d, FEEDBACK_JSON, this.asJson);
  }

  async insert(rows: FeedbackRow[]): Promise<void> {
    const statements = rows.map((row) => this.#insert(row));
    if (rows.length > 0) await this.tx.transaction(() => insertAll(statements));
  }

  async replace(projectId: string, oldId: string, row: FeedbackRow): Promise<void> {
    const remove = compileDeleteIds('feedback', projectId, [oldId], this.d);
    const insert = this.#insert(row);
    await this.tx.transaction(function* () {
      yield* run(remove);
      yield* insertAll([insert]);
    });
  }

  async query(q: RecordQuery): Promise<FeedbackRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(compileRecordSelect('feedback', q, this.d));
    return rows.map(feedbackFromDb);
  }

  async count(q: RecordQuery): Promise<number> {
    const rows = await this.tx.read<{ n: number | string }>(compileRecordCount('feedback', q, this.d));
    return Number(rows[0]?.n ?? 0);
  }

  async purge(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const remove = compileDeleteIds('feedback', projectId, ids, this.d);
    return this.tx.transaction(() => run(remove));
  }

  async forRefs(projectId: string, refs: string[]): Promise<FeedbackRow[]> {
    if (refs.length === 0) return [];
    const p = new SqlParams(this.d);
    const sql = `SELECT * FROM feedback WHERE project_id = ${p.add(projectId)} AND ${this.d.inList('weave_ref', refs, p)} ORDER BY created_at ASC, id ASC`;
    return (await this.tx.read<Record<string, unknown>>({ sql, params: p.values })).map(feedbackFromDb);
  }

  async inWindow(w: FeedbackWindow, limit: number | null): Promise<FeedbackRow[]> {
    const p = new SqlParams(this.d);
    const conditions = [
      `project_id = ${p.add(w.project_id)}`,
      `created_at >= ${p.add(w.from)}`,
      `created_at < ${p.add(w.to)}`,
    ];
    if (w.feedback_type != null) conditions.push(`feedback_type = ${p.add(w.feedback_type)}`);
    if (w.trigger_ref != null) {
      conditions.push(
        w.trigger_ref_prefix
          ? this.d.startsWith('trigger_ref', w.trigger_ref, p)
          : `trigger_ref = ${p.add(w.trigger_ref)}`,
      );
    }
    const where = conditions.join(' AND ');
    const source = w.newest_per_trigger_ref
      ? `(SELECT * FROM (SELECT f.*, ROW_NUMBER() OVER (PARTITION BY f.trigger_ref ORDER BY f.created_at DESC, f.id DESC) AS rn
          FROM feedback f WHERE ${where}) ranked WHERE ranked.rn = 1) newest`
      : `(SELECT * FROM feedback WHERE ${where}) matching`;
    const sql = `SELECT * FROM ${source} ORDER BY created_at DESC, id DESC ${this.d.limitOffset(limit, null, p)}`;
    return (await this.tx.read<Record<string, unknown>>({ sql, params: p.values })).map(feedbackFromDb);
  }
}
