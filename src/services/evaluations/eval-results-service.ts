import { parseLosslessJson, toPlainJson } from '../../domain/json-value.js';
import { parseRef, RefParseError } from '../../domain/ref-uri.js';
import { usageEntriesOf } from '../../domain/llm-usage.js';
import {
  applyFilters,
  DATASET_ORDER,
  groupRows,
  intersect,
  sortRows,
  type GroupedRow,
} from '../../domain/eval-results/rows.js';
import { summarize } from '../../domain/eval-results/summary.js';
import { buildTrial, isTrialCall } from '../../domain/eval-results/trials.js';
import type { EvalCall, EvalResultsFilter, EvalResultsRow, TrialRecord } from '../../domain/eval-results/types.js';
import { formatMicros } from '../../domain/time.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import type { EvalResultsQueryBody } from '../../schemas/evaluation-runs.js';
import type { TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import { usageCostExtras } from '../call-extras.js';
import type { RecordPriceLookup } from '../price-table.js';
import type { ProjectAccess } from '../project-access.js';
import { MISSING, RefResolver, type Resolved } from '../ref-resolver.js';
import { datasetPositions } from './dataset-order.js';
import { isRowRef, splitRowRef } from './row-refs.js';
import { EvalCalls } from './eval-calls.js';

/**
 * `eval_results/query` (docs/spec/evaluations.md §4): loads the evaluations' calls, then hands them
 * to the pure grouping in src/domain/eval-results.
 */

/** Row digests asked for in one table read. */
const ROW_READ_SLICE = 1000;

/** Whether a sort or filter reads `inputs.*`, the fields taken from the dataset row. */
const readsInputs = (body: EvalResultsQueryBody): boolean =>
  [...(body.sort_by ?? []).map((s) => s.field), ...(body.filters ?? []).map((f) => JSON.stringify(f.query))].some(
    (text) => text.includes('inputs'),
  );

type PriceBook = Awaited<ReturnType<RecordPriceLookup['forProject']>>;

/**
 * The cost of a call's usage from the project's price book; null when nothing is priced. Read from
 * the call as loaded for the trials, so costing takes no store read per trial.
 */
function callCost(call: EvalCall, book: PriceBook): number | null {
  const extras = usageCostExtras(usageEntriesOf(call.summary), call.startedAt, book);
  const costs = extras.costs as Record<string, Record<string, number>> | undefined;
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

/** Prices the trials of `rows` that are not priced yet (`priced` remembers which were). */
function priceRows(rows: GroupedRow[], book: PriceBook, priced: Set<TrialRecord>): void {
  for (const row of rows) {
    for (const list of row.byEvaluation.values()) {
      for (const record of list) {
        if (priced.has(record)) continue;
        record.trial.total_cost = callCost(record.usageCall, book);
        priced.add(record);
      }
    }
  }
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
    const book = body.include_costs === true ? await this.prices.forProject(projectId) : null;
    const priced = new Set<TrialRecord>();

    const examples = this.#exampleResolver(projectId);
    const grouped = groupRows(trials);
    // a filter or sort on inputs.* reads the row a ref names, so every row it sees is resolved
    if (readsInputs(body)) await examples.resolve(grouped);
    const rootIds = roots.map((root) => root.id);
    const select = (intersection: boolean): GroupedRow[] =>
      applyFilters(
        intersect(grouped, rootIds, intersection),
        body.filters as EvalResultsFilter[] | null,
        body.filter_logic_operator ?? 'or',
        examples.of,
      );

    let rows: EvalResultsRow[] = [];
    let totalRows = 0;
    if (body.include_rows !== false) {
      const positionOf = (body.sort_by ?? []).some((key) => key.field === DATASET_ORDER)
        ? await datasetPositions(grouped, {
            tableOf: (rowsRef) => this.#tableOf(projectId, rowsRef),
            rowDigests: (table) => this.store.tables.rowDigests(projectId, table),
          })
        : undefined;
      const sorted = sortRows(select(body.require_intersection === true), body.sort_by, examples.of, positionOf);
      totalRows = sorted.length;
      const offset = body.offset ?? 0;
      const page = sorted.slice(offset, body.limit == null ? undefined : offset + body.limit);
      const resolveRefs = body.include_raw_data_rows === true && body.resolve_row_refs === true;
      // §4.1: dataset-row refs are resolved after pagination, so only the page's rows are read
      if (resolveRefs) await examples.resolve(page);
      if (book) priceRows(page, book, priced);
      rows = page.map((row) => ({
        row_digest: row.rowDigest,
        raw_data_row: body.include_raw_data_rows === true ? examples.raw(row, resolveRefs, warnings) : null,
        evaluations: [...row.byEvaluation].map(([id, list]) => ({
          evaluation_call_id: id,
          trials: list.map((record) => record.trial),
        })),
      }));
    }
    let summary = null;
    if (includeSummary) {
      const summaryRows = select(body.summary_require_intersection ?? body.require_intersection === true);
      if (book) priceRows(summaryRows, book, priced);
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

  /**
   * The values of dataset-row refs. Refs into one dataset's rows share their path up to the row id:
   * that path is followed once to its table ref, and the table's rows are read in slices, so a page
   * costs a few reads rather than two per row. Anything else falls back to the resolver per ref,
   * which follows the same rules (src/services/ref-resolver.ts).
   */
  async #resolveRowRefs(projectId: string, uris: string[]): Promise<Map<string, Resolved>> {
    const out = new Map<string, Resolved>();
    const byBase = new Map<string, Map<string, string[]>>();
    for (const uri of uris) {
      const parts = splitRowRef(uri);
      if (parts === null) {
        out.set(uri, await this.#refs.expansion(projectId, uri));
        continue;
      }
      const rowsOf = byBase.get(parts.rowsRef) ?? new Map<string, string[]>();
      rowsOf.set(parts.rowDigest, [...(rowsOf.get(parts.rowDigest) ?? []), uri]);
      byBase.set(parts.rowsRef, rowsOf);
    }
    for (const [base, rowsOf] of byBase) {
      const table = await this.#tableOf(projectId, base);
      if (table === null) {
        for (const uri of [...rowsOf.values()].flat()) out.set(uri, await this.#refs.expansion(projectId, uri));
        continue;
      }
      const digests = [...rowsOf.keys()];
      for (let i = 0; i < digests.length; i += ROW_READ_SLICE) {
        const slice = digests.slice(i, i + ROW_READ_SLICE);
        for await (const row of this.store.tables.query({ project_id: projectId, digest: table, row_digests: slice }))
          for (const uri of rowsOf.get(row.digest) ?? []) out.set(uri, parseLosslessJson(row.val));
      }
      for (const uri of [...rowsOf.values()].flat()) if (!out.has(uri)) out.set(uri, MISSING);
    }
    return out;
  }

  /** The digest of the table a `…/attr/rows` path ends at, when it is a table of this project. */
  async #tableOf(projectId: string, base: string): Promise<string | null> {
    const value = await this.#refs.expansion(projectId, base);
    if (typeof value !== 'string') return null;
    try {
      const ref = parseRef(value);
      return ref.kind === 'table' && `${ref.entity}/${ref.project}` === projectId ? ref.digest : null;
    } catch (error) {
      if (error instanceof RefParseError) return null;
      throw error;
    }
  }

  /**
   * The rows dataset-row refs name, read once per ref and only for the rows asked for; inline
   * examples are their own row.
   */
  #exampleResolver(projectId: string) {
    const resolved = new Map<string, unknown>();
    return {
      resolve: async (rows: GroupedRow[]): Promise<void> => {
        const wanted = new Set<string>();
        for (const row of rows) if (isRowRef(row.example) && !resolved.has(row.example)) wanted.add(row.example);
        for (const [uri, value] of await this.#resolveRowRefs(projectId, [...wanted]))
          resolved.set(uri, value === MISSING ? MISSING : toPlainJson(value));
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
