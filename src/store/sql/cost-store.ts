import type { CostRow, CostStore, RecordQuery } from '../feedback-types.js';
import { compileDeleteIds, compileInsert, compileRecordSelect, insertAll } from './record-sql.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';
import { sqlTag } from './core/sql-tag.js';
import { run, type TxRunner } from './core/sql-tx.js';

/**
 * The project LLM price store (docs/spec/objects.md §8) written once over the transaction runner
 * (core/sql-tx.ts) and a dialect, so every adapter shares it. Table `llm_token_prices`, keyed
 * (project_id, id); rows leave with `pricing_level_id` set to the project. A change of a project's
 * prices starts a new generation of its cost entries in the same transaction (`newCostGeneration`).
 */

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

export class SqlCostStore implements CostStore {
  constructor(
    private readonly tx: TxRunner,
    private readonly d: SqlDialect,
  ) {}

  async insert(projectId: string, rows: CostRow[]): Promise<void> {
    if (rows.length === 0) return;
    const statements = rows.map(({ pricing_level_id: _level, ...row }) =>
      compileInsert('llm_token_prices', { project_id: projectId, ...row }, this.d),
    );
    const newGeneration = this.#newCostGeneration(projectId);
    await this.tx.transaction(function* () {
      yield* insertAll(statements);
      yield* run(newGeneration);
    });
  }

  /**
   * The cost sort's entries (migration 024, call-indexes/cost-entries.ts) hold the costs at the project's
   * prices: once those change, the call indexer writes a new generation, and queries read every call
   * until it is complete.
   */
  #newCostGeneration(projectId: string) {
    return sqlTag(
      this.d,
    )`UPDATE call_cost_gens SET gen = gen + 1, rebuilt_after = '', rebuild_until = NULL WHERE project_id = ${projectId}`;
  }

  async query(q: RecordQuery): Promise<CostRow[]> {
    return (await this.tx.read<Record<string, unknown>>(compileRecordSelect('llm_token_prices', q, this.d))).map(
      costFromDb,
    );
  }

  async purge(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const remove = compileDeleteIds('llm_token_prices', projectId, ids, this.d);
    const newGeneration = this.#newCostGeneration(projectId);
    return this.tx.transaction(function* () {
      const removed = yield* run(remove);
      if (removed > 0) yield* run(newGeneration);
      return removed;
    });
  }

  async forModels(projectId: string, llmIds: string[] | null): Promise<CostRow[]> {
    if (llmIds !== null && llmIds.length === 0) return [];
    const p = new SqlParams(this.d);
    const models = llmIds === null ? '' : ` AND ${this.d.inList('llm_id', llmIds, p)}`;
    const sql = `SELECT * FROM llm_token_prices WHERE project_id = ${p.add(projectId)}${models} ORDER BY created_at ASC, id ASC`;
    return (await this.tx.read<Record<string, unknown>>({ sql, params: p.values })).map(costFromDb);
  }
}
