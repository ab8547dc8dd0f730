import { ObjectInvalidRequestError } from '../../errors/object-errors.js';
import type { CostRow, CostStore, FeedbackRow, FeedbackStore, FeedbackWindow, RecordQuery } from '../feedback-types.js';
import {
  compileDeleteIds,
  compileInsert,
  compileRecordCount,
  compileRecordSelect,
  type SqlExecutor,
} from './record-sql.js';
import type { CompiledSql } from './calls-select.js';
import { SqlParams, type SqlDialect } from './sql-dialect.js';

/**
 * Feedback and price stores written once over a SqlExecutor and a dialect, so every adapter
 * shares them (objects spec §7, §8). Tables: `feedback`, `llm_token_prices`, both keyed
 * (project_id, id).
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

function costFromDb(raw: Record<string, unknown>): CostRow {
  const row = { ...raw, pricing_level_id: raw.project_id } as Record<string, unknown>;
  delete row.project_id;
  for (const key of [
    'effective_date',
    'created_at',
    'prompt_token_cost',
    'completion_token_cost',
    'cache_read_input_token_cost',
    'cache_creation_input_token_cost',
  ]) {
    row[key] = Number(row[key]);
  }
  return row as unknown as CostRow;
}

/** Inserts skip existing keys; one skipped row fails the whole write. */
function allInserted(changed: number[]): void {
  if (changed.some((n) => n === 0))
    throw new ObjectInvalidRequestError('A record with this id already exists in the project');
}

export class SqlFeedbackStore implements FeedbackStore {
  /** `asJson` turns a bound JSON-text parameter into the backend's JSON column type (identity where text is JSON). */
  constructor(
    private readonly exec: SqlExecutor,
    private readonly d: SqlDialect,
    private readonly asJson: (sql: string) => string = (sql) => sql,
  ) {}

  #insert(row: FeedbackRow): CompiledSql {
    return compileInsert('feedback', row, this.d, FEEDBACK_JSON, this.asJson);
  }

  async insert(rows: FeedbackRow[]): Promise<void> {
    if (rows.length > 0)
      await this.exec.write(
        rows.map((row) => this.#insert(row)),
        allInserted,
      );
  }

  async replace(projectId: string, oldId: string, row: FeedbackRow): Promise<void> {
    await this.exec.write([compileDeleteIds('feedback', projectId, [oldId], this.d), this.#insert(row)], (changed) =>
      allInserted(changed.slice(1)),
    );
  }

  async query(q: RecordQuery): Promise<FeedbackRow[]> {
    const rows = await this.exec.all<Record<string, unknown>>(compileRecordSelect('feedback', q, this.d));
    return rows.map(feedbackFromDb);
  }

  async count(q: RecordQuery): Promise<number> {
    const rows = await this.exec.all<{ n: number | string }>(compileRecordCount('feedback', q, this.d));
    return Number(rows[0]?.n ?? 0);
  }

  async purge(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const [changed] = await this.exec.write([compileDeleteIds('feedback', projectId, ids, this.d)]);
    return changed;
  }

  async forRefs(projectId: string, refs: string[]): Promise<FeedbackRow[]> {
    if (refs.length === 0) return [];
    const p = new SqlParams(this.d);
    const sql = `SELECT * FROM feedback WHERE project_id = ${p.add(projectId)} AND ${this.d.inList('weave_ref', refs, p)} ORDER BY created_at ASC, id ASC`;
    return (await this.exec.all<Record<string, unknown>>({ sql, params: p.values })).map(feedbackFromDb);
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
    return (await this.exec.all<Record<string, unknown>>({ sql, params: p.values })).map(feedbackFromDb);
  }
}

export class SqlCostStore implements CostStore {
  constructor(
    private readonly exec: SqlExecutor,
    private readonly d: SqlDialect,
  ) {}

  async insert(projectId: string, rows: CostRow[]): Promise<void> {
    if (rows.length === 0) return;
    const statements = rows.map(({ pricing_level_id: _level, ...row }) =>
      compileInsert('llm_token_prices', { project_id: projectId, ...row }, this.d),
    );
    await this.exec.write(statements, allInserted);
  }

  async query(q: RecordQuery): Promise<CostRow[]> {
    return (await this.exec.all<Record<string, unknown>>(compileRecordSelect('llm_token_prices', q, this.d))).map(
      costFromDb,
    );
  }

  async purge(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const [changed] = await this.exec.write([compileDeleteIds('llm_token_prices', projectId, ids, this.d)]);
    return changed;
  }

  async forModels(projectId: string, llmIds: string[] | null): Promise<CostRow[]> {
    if (llmIds !== null && llmIds.length === 0) return [];
    const p = new SqlParams(this.d);
    const models = llmIds === null ? '' : ` AND ${this.d.inList('llm_id', llmIds, p)}`;
    const sql = `SELECT * FROM llm_token_prices WHERE project_id = ${p.add(projectId)}${models} ORDER BY created_at ASC, id ASC`;
    return (await this.exec.all<Record<string, unknown>>({ sql, params: p.values })).map(costFromDb);
  }
}
