import { uuidv7 } from '../domain/ids.js';
import { parseQuery, parseSort } from '../domain/query/parse.js';
import { COST_OUTPUT_FIELDS, purgeIds, resolveCostField } from '../domain/record-fields.js';
import { formatMicros, nowMicros, toMicros } from '../domain/time.js';
import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import type { CostCreateReq, CostQueryReq } from '../schemas/costs.js';
import type { PurgeReq } from '../schemas/feedback.js';
import type { CostRow, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { AuditLog } from './audit-service.js';
import { parseProjectId, type ProjectAccess } from './project-access.js';

/** Project-level LLM prices (docs/spec/objects.md §8.2–8.4). */
export class CostService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly audit: AuditLog,
  ) {}

  /** §8.2: one new project row per entry, in request key order; existing rows are never changed. */
  async create(caller: Caller, req: CostCreateReq): Promise<{ ids: Array<[string, string]> }> {
    await this.access.assertCanWrite(caller, req.project_id);
    const now = nowMicros();
    const rows: CostRow[] = Object.entries(req.costs).map(([llmId, input]) => {
      const effective = input.effective_date == null ? now : toMicros(input.effective_date);
      if (effective === null) throw new ObjectInvalidRequestError(`Invalid effective_date for ${llmId}`);
      return {
        id: uuidv7(),
        pricing_level: 'project',
        pricing_level_id: req.project_id,
        provider_id: input.provider_id ?? 'default',
        llm_id: llmId,
        effective_date: effective,
        prompt_token_cost: input.prompt_token_cost,
        completion_token_cost: input.completion_token_cost,
        cache_read_input_token_cost: input.cache_read_input_token_cost ?? 0,
        cache_creation_input_token_cost: input.cache_creation_input_token_cost ?? 0,
        prompt_token_cost_unit: input.prompt_token_cost_unit ?? 'USD',
        completion_token_cost_unit: input.completion_token_cost_unit ?? 'USD',
        created_by: caller.userId,
        created_at: now,
      };
    });
    await this.store.costs.insert(req.project_id, rows);
    const ids = rows.map((row): [string, string] => [row.id, row.llm_id]);
    await this.audit.record(caller, parseProjectId(req.project_id).entity, 'prices.created', req.project_id, {
      ids,
      costs: req.costs,
    });
    return { ids };
  }

  /** §8.3: the project's own rows only; unrequested fields read null when `fields` is given. */
  async query(caller: Caller, req: CostQueryReq): Promise<{ results: Record<string, unknown>[] }> {
    this.access.assertCanRead(caller, req.project_id);
    if (req.limit != null && req.limit < 0) throw new ObjectInvalidRequestError('limit must not be negative');
    if (req.offset != null && req.offset < 0) throw new ObjectInvalidRequestError('offset must not be negative');
    for (const field of req.fields ?? []) resolveCostField(field);
    const rows = await this.store.costs.query({
      project_id: req.project_id,
      where: req.query ? parseQuery(req.query, resolveCostField) : null,
      sort_by: req.sort_by ? parseSort(req.sort_by, resolveCostField) : null,
      limit: req.limit == null ? null : Math.min(req.limit, Number.MAX_SAFE_INTEGER),
      offset: req.offset == null ? null : Math.min(req.offset, Number.MAX_SAFE_INTEGER),
    });
    const wanted = req.fields == null ? null : new Set(req.fields);
    const results = rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (const field of COST_OUTPUT_FIELDS) {
        const value = field === 'effective_date' ? formatMicros(row.effective_date) : row[field];
        out[field] = wanted === null || wanted.has(field) ? value : null;
      }
      return out;
    });
    return { results };
  }

  async purge(caller: Caller, req: PurgeReq): Promise<Record<string, never>> {
    await this.access.assertCanWrite(caller, req.project_id);
    const ids = purgeIds(req.query, true);
    if (ids === null) throw new ObjectInvalidRequestError('Can only purge costs by specifying one or more cost ids');
    await this.store.costs.purge(req.project_id, ids);
    await this.audit.record(caller, parseProjectId(req.project_id).entity, 'prices.purged', req.project_id, { ids });
    return {};
  }
}
