import { toPlainJson } from '../../domain/json-value.js';
import { applyFilters, groupRows, intersect, sortRows, type GroupedRow } from '../../domain/eval-results/rows.js';
import { summarize } from '../../domain/eval-results/summary.js';
import { buildTrial, isTrialCall } from '../../domain/eval-results/trials.js';
import type { EvalCall, EvalResultsFilter, EvalResultsRow, TrialRecord } from '../../domain/eval-results/types.js';
import { formatMicros } from '../../domain/time.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import type { EvalResultsQueryBody } from '../../schemas/evaluation-runs.js';
import type { CallRow, TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import { costExtras } from '../call-extras.js';
import type { RecordPriceLookup } from '../price-table.js';
import type { ProjectAccess } from '../project-access.js';
import { MISSING, RefResolver } from '../ref-resolver.js';
import { EvalCalls } from './eval-calls.js';

/**
 * `eval_results/query` (docs/spec/evaluations.md §4): loads the evaluations' calls, then hands them
 * to the pure grouping in src/domain/eval-results.
 */

const ROW_REF_MARKER = '/attr/rows/id/';
const isRowRef = (example: unknown): example is string =>
  typeof example === 'string' && example.includes(ROW_REF_MARKER);

/** The cost of a call's usage from the project's price book; null when nothing is priced. */
function callCost(row: CallRow, book: Awaited<ReturnType<RecordPriceLookup['forProject']>>): number | null {
  const costs = costExtras(row, book).costs as Record<string, Record<string, number>> | undefined;
  if (!costs) return null;
  let total = 0;
  for (const entry of Object.values(costs)) {
    total +=
      (entry.prompt_tokens_total_cost ?? 0) +
      (entry.completion_tokens_total_cost ?? 0) +
      (entry.cache_read_input_tokens_total_cost ?? 0) +
      (entry.cache_creation_input_tokens_total_cost ?? 0);
  }
  return total;
}

export class EvalResultsService {
  readonly #refs: RefResolver;

  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly calls: EvalCalls,
    private readonly prices: RecordPriceLookup,
  ) {
    this.#refs = new RefResolver(store);
  }

  async query(caller: Caller, projectId: string, body: EvalResultsQueryBody) {
    this.access.assertCanRead(caller, projectId);
    if ((body.limit != null && body.limit < 0) || (body.offset != null && body.offset < 0))
      throw new InvalidRequestError('limit and offset must not be negative');
    const ids = [...new Set([...(body.evaluation_call_ids ?? []), ...(body.evaluation_run_ids ?? [])])];
    const includeSummary = body.include_summary === true;
    const warnings: string[] = [];
    if (ids.length === 0)
      return { rows: [], total_rows: 0, summary: includeSummary ? { row_count: 0, evaluations: [] } : null, warnings };

    const roots = await this.#roots(projectId, ids);
    const trials = await this.#trials(projectId, roots, body.include_predict_and_score_children !== false);
    if (body.include_costs === true) await this.#addCosts(projectId, trials);

    const examples = await this.#exampleResolver(projectId, body);
    const rootIds = roots.map((root) => root.id);
    const select = (intersection: boolean): GroupedRow[] => {
      const grouped = intersect(groupRows(trials), rootIds, intersection);
      return applyFilters(
        grouped,
        body.filters as EvalResultsFilter[] | null,
        body.filter_logic_operator ?? 'or',
        examples.of,
      );
    };
    await examples.prepare(groupRows(trials));

    let rows: EvalResultsRow[] = [];
    let totalRows = 0;
    if (body.include_rows !== false) {
      const sorted = sortRows(select(body.require_intersection === true), body.sort_by, examples.of);
      totalRows = sorted.length;
      const offset = body.offset ?? 0;
      const page = sorted.slice(offset, body.limit == null ? undefined : offset + body.limit);
      rows = page.map((row) => ({
        row_digest: row.rowDigest,
        raw_data_row:
          body.include_raw_data_rows === true ? examples.raw(row, body.resolve_row_refs === true, warnings) : null,
        evaluations: [...row.byEvaluation].map(([id, list]) => ({
          evaluation_call_id: id,
          trials: list.map((record) => record.trial),
        })),
      }));
    }
    let summary = null;
    if (includeSummary) {
      const summaryRows = select(body.summary_require_intersection ?? body.require_intersection === true);
      summary = { row_count: summaryRows.length, evaluations: summarize(summaryRows, roots, formatMicros) };
    }
    return { rows, total_rows: totalRows, summary, warnings };
  }

  /** The requested root calls that exist, in the order asked for. */
  async #roots(projectId: string, ids: string[]): Promise<EvalCall[]> {
    const found = new Map<string, EvalCall>();
    for (let i = 0; i < ids.length; i += 500) {
      for await (const call of this.calls.query({ project_id: projectId, filter: { call_ids: ids.slice(i, i + 500) } }))
        found.set(call.id, call);
    }
    return ids.flatMap((id) => {
      const call = found.get(id);
      return call ? [call] : [];
    });
  }

  /** Every trial of the roots, evaluations in request order, trials in start order. */
  async #trials(projectId: string, roots: EvalCall[], withChildren: boolean): Promise<TrialRecord[]> {
    const children = await this.calls.children(
      projectId,
      roots.map((root) => root.id),
    );
    const trialCalls = children.filter(isTrialCall);
    const grandchildren = withChildren
      ? await this.calls.children(
          projectId,
          trialCalls.map((call) => call.id),
        )
      : [];
    const byParent = new Map<string, EvalCall[]>();
    for (const call of grandchildren) {
      if (call.parentId !== null) byParent.set(call.parentId, [...(byParent.get(call.parentId) ?? []), call]);
    }
    const order = new Map(roots.map((root, i) => [root.id, i]));
    return trialCalls
      .filter((call) => call.parentId !== null && order.has(call.parentId))
      .sort((a, b) => (order.get(a.parentId!) ?? 0) - (order.get(b.parentId!) ?? 0) || a.startedAt - b.startedAt)
      .map((call) => buildTrial(call.parentId!, call, withChildren ? (byParent.get(call.id) ?? []) : null));
  }

  async #addCosts(projectId: string, trials: TrialRecord[]): Promise<void> {
    const book = await this.prices.forProject(projectId);
    for (const record of trials) {
      const row = await this.store.calls.read(projectId, record.usageCall.id);
      record.trial.total_cost = row ? callCost(row, book) : null;
    }
  }

  /**
   * Rows named by dataset-row refs are resolved once when a filter or sort reads `inputs.*` or the
   * caller asked for resolved rows; inline examples are their own row.
   */
  async #exampleResolver(projectId: string, body: EvalResultsQueryBody) {
    const readsInputs = [
      ...(body.sort_by ?? []).map((s) => s.field),
      ...(body.filters ?? []).map((f) => JSON.stringify(f.query)),
    ].some((text) => text.includes('inputs'));
    const wantResolved = readsInputs || (body.include_raw_data_rows === true && body.resolve_row_refs === true);
    const resolved = new Map<string, unknown>();
    return {
      prepare: async (rows: GroupedRow[]): Promise<void> => {
        if (!wantResolved) return;
        for (const row of rows) {
          if (!isRowRef(row.example) || resolved.has(row.example)) continue;
          const value = await this.#refs.expansion(projectId, row.example);
          resolved.set(row.example, value === MISSING ? MISSING : toPlainJson(value));
        }
      },
      of: (row: GroupedRow): unknown => {
        if (!isRowRef(row.example)) return row.example;
        const value = resolved.get(row.example);
        return value === undefined || value === MISSING ? undefined : value;
      },
      raw: (row: GroupedRow, resolve: boolean, warnings: string[]): unknown => {
        if (!resolve || !isRowRef(row.example)) return row.example ?? null;
        const value = resolved.get(row.example);
        if (value === undefined || value === MISSING) {
          warnings.push(`Could not resolve dataset row ref ${row.example}`);
          return row.example;
        }
        return value;
      },
    };
  }
}
