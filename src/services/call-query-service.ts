import { resolveCallField, type CallField } from '../domain/call-fields.js';
import { callToJson, type CallViewOptions } from '../domain/call-view.js';
import type { Operation, SortKey } from '../domain/query/ast.js';
import { parseQuery, parseSort, splitFieldPath } from '../domain/query/parse.js';
import { toPlainJson } from '../domain/json-value.js';
import { expandInValue, parseExpandColumns, type ExpandPath } from '../domain/ref-expansion.js';
import { InvalidRequestError } from '../errors/app-error.js';
import type {
  CallReadReq,
  CallsFilterReq,
  CallsQueryReq,
  CallsQueryStatsReq,
  QueryReq,
  SortByReq,
} from '../schemas/calls.js';
import {
  ALL_CALL_COLUMNS,
  ALWAYS_SELECTED,
  type CallRow,
  type CallRowColumn,
  type CallsFilter,
  type CallsQuery,
  type TraceStore,
} from '../store/types.js';
import type { Caller } from './auth-service.js';
import { costExtras } from './call-extras.js';
import type { FeedbackService } from './feedback-service.js';
import { NO_RECORD_PRICES, type RecordPriceBook, type RecordPriceLookup } from './price-table.js';
import type { ProjectAccess } from './project-access.js';
import { MISSING, RefResolver } from './ref-resolver.js';

/** Calls hydrated per feedback lookup while streaming (docs/spec/calls.md §2.10 include_feedback). */
const FEEDBACK_CHUNK = 200;

/** Longest list a `CallsFilter` field may hold (docs/spec/calls.md §5.4). */
export const MAX_FILTER_LIST = 1000;

const FILTER_LISTS = [
  'op_names',
  'input_refs',
  'output_refs',
  'parent_ids',
  'trace_ids',
  'call_ids',
  'thread_ids',
  'turn_ids',
] as const;

/** Columns a query may ask for; the always-selected ones come with every row anyway. */
const SELECTABLE: ReadonlySet<string> = new Set(ALL_CALL_COLUMNS.filter((c) => !ALWAYS_SELECTED.includes(c)));

export function checkFilter(filter: CallsFilterReq | null | undefined): CallsFilter | null {
  if (!filter) return null;
  for (const name of FILTER_LISTS) {
    const list = filter[name];
    if (list && list.length > MAX_FILTER_LIST) {
      throw new InvalidRequestError(
        `Parameter: '${name}' request length is greater than max length (${MAX_FILTER_LIST}). Actual length: ${list.length}`,
      );
    }
  }
  return filter as CallsFilter;
}

export function compileWhere(query: QueryReq | null | undefined): Operation<CallField> | null {
  return query ? parseQuery(query, resolveCallField) : null;
}

export function compileSort(sortBy: SortByReq[] | null | undefined): SortKey<CallField>[] | null {
  return sortBy == null ? null : parseSort(sortBy, resolveCallField);
}

/**
 * Limits and offsets beyond what the store can bind (2^53) mean "everything": clamped rather
 * than refused, since a client may send a huge number to ask for all rows.
 */
const clampCount = (n: number | null | undefined): number | null =>
  n == null ? null : Math.min(n, Number.MAX_SAFE_INTEGER);

/** Our choice (docs/spec/calls.md §4.7): negative limit or offset → 400. */
function checkPaging(
  limit: number | null | undefined,
  offset: number | null | undefined,
): { limit: number | null; offset: number | null } {
  if (limit != null && limit < 0) throw new InvalidRequestError('limit must not be negative');
  if (offset != null && offset < 0) throw new InvalidRequestError('offset must not be negative');
  return { limit: clampCount(limit), offset: clampCount(offset) };
}

/** `columns` → the row columns to load (docs/spec/calls.md §5.6): selecting `summary` or costs pulls what derivation needs. */
function columnsToLoad(columns: string[] | null | undefined, includeCosts: boolean): CallRowColumn[] | null {
  if (columns == null) return null;
  const wanted = new Set<CallRowColumn>();
  for (const column of columns) {
    const top = splitFieldPath(column)[0];
    if (SELECTABLE.has(top)) wanted.add(top as CallRowColumn);
    if (top === 'attributes') wanted.add('otel_dump');
  }
  if (wanted.has('summary') || includeCosts) {
    for (const extra of ['summary', 'ended_at', 'exception', 'display_name'] as const) wanted.add(extra);
  }
  return [...wanted];
}

/** Reads of the calls API: read, stream_query, query_stats (docs/spec/calls.md §4.4, §4.7, §4.8). */
export class CallQueryService {
  readonly #refs: RefResolver;

  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly prices: RecordPriceLookup = NO_RECORD_PRICES,
    private readonly feedback: FeedbackService | null = null,
  ) {
    this.#refs = new RefResolver(store);
  }

  /**
   * The `summary.weave` additions of docs/spec/calls.md §2.10 for a batch of rows: costs from the
   * project's price book, and the feedback list (possibly empty) of every call.
   */
  async #extras(
    projectId: string,
    rows: CallRow[],
    book: RecordPriceBook | null,
    withFeedback: boolean,
  ): Promise<Map<CallRow, Record<string, unknown>>> {
    const feedback =
      withFeedback && this.feedback
        ? await this.feedback.forCalls(
            projectId,
            rows.map((row) => row.id),
          )
        : null;
    const out = new Map<CallRow, Record<string, unknown>>();
    for (const row of rows) {
      const extras: Record<string, unknown> = book ? costExtras(row, book) : {};
      if (withFeedback) extras.feedback = feedback?.get(row.id) ?? [];
      out.set(row, extras);
    }
    return out;
  }

  /** `{"call": …}` as JSON text. */
  async callRead(caller: Caller, req: CallReadReq): Promise<string> {
    this.access.assertCanRead(caller, req.project_id);
    const opts = {
      include_storage_size: req.include_storage_size === true,
      include_total_storage_size: req.include_total_storage_size === true,
    };
    const row = await this.store.calls.read(req.project_id, req.id, opts);
    if (!row) return '{"call":null}';
    const book = req.include_costs === true ? await this.prices.forProject(req.project_id) : null;
    const extras = await this.#extras(req.project_id, [row], book, req.include_feedback === true);
    const view: CallViewOptions = {
      columns: null,
      includeStorageSize: opts.include_storage_size,
      includeTotalStorageSize: opts.include_total_storage_size,
      weaveExtras: (r) => extras.get(r),
    };
    return `{"call":${callToJson(row, view)}}`;
  }

  /**
   * Validates and compiles the query, then returns the lines to stream. Errors surface before
   * the first line so the route can still answer with a status.
   */
  async callsQueryStream(caller: Caller, req: CallsQueryReq): Promise<AsyncIterable<string>> {
    this.access.assertCanRead(caller, req.project_id);
    const paging = checkPaging(req.limit, req.offset);
    const includeCosts = req.include_costs === true;
    const columns = columnsToLoad(req.columns, includeCosts);
    const query: CallsQuery = {
      project_id: req.project_id,
      filter: checkFilter(req.filter),
      where: compileWhere(req.query),
      sort_by: compileSort(req.sort_by),
      limit: paging.limit,
      offset: paging.offset,
      columns,
      include_storage_size: req.include_storage_size === true,
      include_total_storage_size: req.include_total_storage_size === true,
      include_usernames: req.include_usernames === true,
      expand: parseExpandColumns(req.expand_columns),
    };
    const view: CallViewOptions = {
      columns: columns === null ? null : new Set(columns),
      includeStorageSize: query.include_storage_size === true,
      includeTotalStorageSize: query.include_total_storage_size === true,
      includeUsernames: query.include_usernames === true,
    };
    const rows = this.store.calls.query(query);
    const expand = req.return_expanded_column_values === false ? [] : (query.expand ?? []);
    const expandRow = this.#rowExpander(req.project_id, expand);
    const withFeedback = req.include_feedback === true;
    if (!includeCosts && !withFeedback) {
      return (async function* lines() {
        for await (const row of rows) yield `${callToJson(expand.length > 0 ? await expandRow(row) : row, view)}\n`;
      })();
    }
    const book = includeCosts ? await this.prices.forProject(req.project_id) : null;
    const hydrate = (batch: CallRow[]): Promise<Map<CallRow, Record<string, unknown>>> =>
      this.#extras(req.project_id, batch, book, withFeedback);
    return (async function* hydratedLines() {
      let batch: CallRow[] = [];
      const flush = async function* (): AsyncGenerator<string> {
        const extras = await hydrate(batch);
        for (const row of batch) {
          const line = callToJson(expand.length > 0 ? await expandRow(row) : row, {
            ...view,
            weaveExtras: () => extras.get(row),
          });
          yield `${line}\n`;
        }
        batch = [];
      };
      for await (const row of rows) {
        batch.push(row);
        if (batch.length >= FEEDBACK_CHUNK) yield* flush();
      }
      if (batch.length > 0) yield* flush();
    })();
  }

  /**
   * Replaces refs at the `expand_columns` paths of a returned call by their objects (docs/spec/calls.md §5.6).
   * Objects are looked up once per request.
   */
  #rowExpander(projectId: string, expand: ExpandPath[]): (row: CallRow) => Promise<CallRow> {
    const cache = new Map<string, Promise<unknown | undefined>>();
    const resolve = (ref: string): Promise<unknown | undefined> => {
      let found = cache.get(ref);
      if (!found) {
        found = this.#refs
          .expansion(projectId, ref)
          .then((value) => (value === MISSING ? undefined : toPlainJson(value)));
        cache.set(ref, found);
      }
      // each call gets its own copy: expansions below may write into the value
      return found.then((value) => (value === undefined ? undefined : structuredClone(value)));
    };
    return async (row) => {
      const out: CallRow = { ...row };
      for (const column of new Set(expand.map((e) => e.column))) {
        const text = row[column];
        if (text == null) continue;
        const paths = expand.filter((e) => e.column === column).map((e) => e.path);
        out[column] = JSON.stringify(await expandInValue(JSON.parse(text), paths, resolve));
      }
      return out;
    };
  }

  async callsQueryStats(
    caller: Caller,
    req: CallsQueryStatsReq,
  ): Promise<{ count: number; total_storage_size_bytes: number | null; has_more: boolean | null }> {
    this.access.assertCanRead(caller, req.project_id);
    if (req.limit != null && req.limit < 1) throw new InvalidRequestError('Limit must be a positive integer');
    const includeTotal = req.include_total_storage_size === true;
    const result = await this.store.calls.count({
      project_id: req.project_id,
      filter: checkFilter(req.filter),
      where: compileWhere(req.query),
      expand: parseExpandColumns(req.expand_columns),
      limit: clampCount(req.limit),
      include_total_storage_size: includeTotal,
    });
    const limit = clampCount(req.limit);
    return {
      count: limit === null ? result.count : Math.min(result.count, limit),
      total_storage_size_bytes: includeTotal ? Number(result.total_storage_size_bytes ?? 0) : null,
      has_more: limit === null ? null : result.count > limit,
    };
  }
}
