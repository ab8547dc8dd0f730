import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { Call } from '../lib/call.js';
import type { EvalResultsPage, EvalStatus } from '../lib/evals.js';
import { postJson, postJsonl } from './client.js';
import type { ApiPaths } from './openapi.gen.js';
import { keys } from './keys.js';

export const EVAL_LIST_LIMIT = 500;
export const ROWS_PAGE = 100;

/** Every `Evaluation.evaluate` root call of the project, newest first (evaluations spec §7). */
export function useEvaluationRuns(projectId: string) {
  return useQuery({
    queryKey: keys.evalRuns(projectId),
    queryFn: ({ signal }) =>
      postJsonl<Call>(
        '/calls/stream_query',
        {
          project_id: projectId,
          filter: { op_names: [`weave:///${projectId}/op/Evaluation.evaluate:*`], trace_roots_only: true },
          columns: [
            'id',
            'op_name',
            'display_name',
            'trace_id',
            'started_at',
            'ended_at',
            'exception',
            'inputs',
            'output',
            'attributes',
            'summary',
          ],
          sort_by: [{ field: 'started_at', direction: 'desc' }],
          limit: EVAL_LIST_LIMIT,
        },
        signal,
      ),
    placeholderData: keepPreviousData,
  });
}

/** The root calls of the given evaluations by id (status and timing, no inputs or outputs). */
export function useEvalRoots(projectId: string, ids: string[]) {
  return useQuery<Map<string, Call>>({
    queryKey: keys.evalRoots(projectId, ids),
    enabled: ids.length > 0,
    refetchInterval: (q) => ([...(q.state.data?.values() ?? [])].some((c) => c.ended_at == null) ? 3000 : false),
    queryFn: async ({ signal }) => {
      const calls = await postJsonl<Call>(
        '/calls/stream_query',
        {
          project_id: projectId,
          filter: { call_ids: ids },
          columns: ['id', 'op_name', 'display_name', 'trace_id', 'started_at', 'ended_at', 'exception', 'summary'],
        },
        signal,
      );
      return new Map(calls.map((c) => [c.id, c]));
    },
  });
}

/** `POST /evaluations/status`, polled every two seconds while the run is running (spec §6.4). */
export function useEvaluationStatus(projectId: string, callId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.evalStatus(projectId, callId),
    enabled,
    queryFn: async ({ signal }) =>
      (
        await postJson<{ status: EvalStatus }>(
          '/evaluations/status',
          { project_id: projectId, call_id: callId },
          signal,
        )
      ).status,
    refetchInterval: (q) => (q.state.data?.code === 'running' ? 2000 : false),
  });
}

type EvalResultsBody = ApiPaths['/v2/{entity}/{project}/eval_results/query']['post']['body'];

/** `/v2/{entity}/{project}/eval_results/query` of `entity/project`. */
const resultsPath = (projectId: string): `/v2/${string}/${string}/eval_results/query` => {
  const [entity = '', project = ''] = projectId.split('/');
  return `/v2/${entity}/${project}/eval_results/query`;
};

/**
 * The predict cost of each compared evaluation: a second, slower query (the server prices every
 * predict call), asked for only once the rows are on screen.
 */
export function useEvalCosts(projectId: string, ids: string[], enabled: boolean) {
  const body = { evaluation_call_ids: ids, include_rows: false, include_summary: true, include_costs: true };
  return useQuery({
    queryKey: keys.evalResults(projectId, body),
    enabled: enabled && ids.length > 0,
    queryFn: async ({ signal }) => {
      const summary = (await postJson<EvalResultsPage>(resultsPath(projectId), body, signal)).summary;
      return new Map((summary?.evaluations ?? []).map((e) => [e.evaluation_call_id, e.predict_total_cost]));
    },
  });
}

export interface EvalRowsRequest {
  ids: string[];
  /** A `scores.…` field to sort by its difference across evaluations, largest first. */
  diffField: string | null;
  /** Only rows that meet this (`EvalResultsFilter`, spec §4.1). */
  filter?: { evaluation_call_id: string | null; query: unknown } | null;
}

/**
 * The per-row results, a page of ROWS_PAGE at a time through offset/limit. The first page also
 * carries the summary (spec §4.3 step 7: independent of paging), so the view opens with one request.
 */
export function useEvalRows(projectId: string, req: EvalRowsRequest) {
  const body: Omit<EvalResultsBody, 'include_summary' | 'limit' | 'offset'> = {
    evaluation_call_ids: req.ids,
    include_raw_data_rows: true,
    resolve_row_refs: true,
    // rows keep their dataset's order (the server's `dataset_order`), after the difference when one is asked for
    sort_by: [
      ...(req.diffField
        ? [
            { field: req.diffField, direction: 'desc' as const, mode: 'difference' as const },
            { field: req.diffField, direction: 'asc' as const, evaluation_call_id: req.ids[0] },
          ]
        : []),
      { field: 'dataset_order', direction: 'asc' as const },
    ],
    filters: req.filter ? [req.filter as NonNullable<EvalResultsBody['filters']>[number]] : null,
  };
  return useInfiniteQuery({
    queryKey: keys.evalResults(projectId, body),
    enabled: req.ids.length > 0,
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) =>
      postJson<EvalResultsPage>(
        resultsPath(projectId),
        { ...body, include_summary: pageParam === 0, limit: ROWS_PAGE, offset: pageParam },
        signal,
      ),
    getNextPageParam: (last, pages) => {
      const loaded = pages.length * ROWS_PAGE;
      return loaded < last.total_rows ? loaded : undefined;
    },
    placeholderData: keepPreviousData,
  });
}

/**
 * The summary of the compared runs over all their rows, for when the rows are filtered (the
 * server's summary follows the row filters, spec §4.3 step 7): no rows, one request.
 */
export function useEvalSummary(projectId: string, ids: string[], enabled: boolean) {
  const body = { evaluation_call_ids: ids, include_rows: false, include_summary: true };
  return useQuery({
    queryKey: keys.evalResults(projectId, body),
    enabled: enabled && ids.length > 0,
    queryFn: async ({ signal }) => (await postJson<EvalResultsPage>(resultsPath(projectId), body, signal)).summary,
  });
}

/**
 * Values of the weave refs among model outputs: the Python client stores an output that is also an
 * attribute of the model as a ref to it (`…/object/calc:…/attr/answers/key/3%2B3`), so outputs are
 * resolved through `/refs/read_batch` before they are shown or compared.
 */
export function useResolvedRefs(refs: string[]) {
  return useQuery({
    queryKey: ['refs', 'read_batch', refs] as const,
    enabled: refs.length > 0,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) => {
      const out = new Map<string, unknown>();
      for (let i = 0; i < refs.length; i += 500) {
        const chunk = refs.slice(i, i + 500);
        const { vals } = await postJson<{ vals: unknown[] }>('/refs/read_batch', { refs: chunk }, signal);
        chunk.forEach((r, k) => out.set(r, vals[k]));
      }
      return out;
    },
  });
}
