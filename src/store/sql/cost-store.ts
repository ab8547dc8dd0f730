import type { CostRow, CostStore, RecordQuery } from '../feedback-types.js';
import { compileDeleteIds, compileInsert, compileRecordSelect, insertAll } from './record-sql.js';
import { SqlParams, type SqlDialect } from './sql-dialect.js';
import { run, type TxRunner } from './sql-tx.js';

/**
 * The project LLM price store (docs/spec/objects.md §8) written once over the transaction runner
 * (sql-tx.ts) and a dialect, so every adapter shares it. Table `llm_token_prices`, keyed
 * (project_id, id); rows leave with `pricing_level_id` set to the project.
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
    await this.tx.transaction(() => insertAll(statements));
  }

  async query(q: RecordQuery): Promise<CostRow[]> {
    return (await this.tx.read<Record<string, unknown>>(compileRecordSelect('llm_token_prices', q, this.d))).map(
      costFromDb,
    );
  }

  async purge(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const remove = compileDeleteIds('llm_token_prices', projectId, ids, this.d);
    return this.tx.transaction(() => run(remove));
  }

  async forModels(projectId: string, llmIds: string[] | null): Promise<CostRow[]> {
    if (llmIds !== null && llmIds.length === 0) return [];
    const p = new SqlParams(this.d);
    const models = llmIds === null ? '' : ` AND ${this.d.inList('llm_id', llmIds, p)}`;
    const sql = `SELECT * FROM llm_token_prices WHERE project_id = ${p.add(projectId)}${models} ORDER BY created_at ASC, id ASC`;
    return (await this.tx.read<Record<string, unknown>>({ sql, params: p.values })).map(costFromDb);
  }
}
