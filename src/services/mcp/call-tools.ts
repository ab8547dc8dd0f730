import { Type } from '@sinclair/typebox';
import type { Ajv } from 'ajv';
import { NotFoundError } from '../../errors/app-error.js';
import * as C from '../../schemas/calls.js';
import { ThreadsQueryReq } from '../../schemas/threads.js';
import type { Caller } from '../auth-service.js';
import type { CallQueryService } from '../call-query-service.js';
import type { ThreadService } from '../thread-service.js';
import { fitPage, fitValue, MAX_RESULT_CHARS, pageLimit } from './mcp-bounds.js';
import type { McpTool } from './mcp-tool.js';
import { defined, Limit, Loose, Offset, ProjectId, requestChecker, takeLines } from './tool-args.js';

const FILTER_DOC =
  'Optional CallsFilter of /calls/stream_query: op_names (op refs), trace_ids, call_ids, parent_ids, ' +
  'thread_ids, turn_ids, trace_roots_only, input_refs, output_refs, wb_user_ids, wb_run_ids.';
const QUERY_DOC =
  'Optional query of /calls/stream_query: {"$expr": …} in the Weave query language, e.g. ' +
  '{"$expr":{"$gt":[{"$getField":"summary.weave.latency_ms"},{"$literal":1000}]}} or ' +
  '{"$expr":{"$contains":{"input":{"$getField":"op_name"},"substr":{"$literal":"chat"}}}}.';

/** The columns of a trace's outline: enough to see its shape; get_call opens one call in full. */
const OUTLINE_COLUMNS = [
  'id',
  'parent_id',
  'op_name',
  'display_name',
  'started_at',
  'ended_at',
  'exception',
  'summary',
];

/** Turn calls of a thread are those whose id is their turn_id (docs/spec/calls.md §2.7). */
const TURN_QUERY = { $expr: { $eq: [{ $getField: 'id' }, { $getField: 'turn_id' }] } };

function pick(row: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in row).map((key) => [key, row[key]]));
}

export function callTools(ajv: Ajv, calls: CallQueryService, threads: ThreadService): McpTool[] {
  const queryReq = requestChecker<C.CallsQueryReq>(ajv, C.CallsQueryReq);
  const statsReq = requestChecker<C.CallsQueryStatsReq>(ajv, C.CallsQueryStatsReq);
  const threadsReq = requestChecker<ThreadsQueryReq>(ajv, ThreadsQueryReq);

  /** One page of calls: asks for one more than the page to know whether more follow. */
  const page = async (caller: Caller, req: Record<string, unknown>, limit: number, offset: number) => {
    const lines = await calls.callsQueryStream(caller, queryReq(defined({ ...req, limit: limit + 1, offset })));
    const rows = (await takeLines(lines, limit + 1)) as Record<string, unknown>[];
    // a read with columns still renders every field (empty); the agent gets only those it asked for
    const columns = req.columns as string[] | undefined;
    const kept = columns === undefined ? rows : rows.map((row) => pick(row, ['id', ...columns]));
    return fitPage(kept.slice(0, limit), offset, rows.length > limit);
  };

  const queryCalls: McpTool = {
    name: 'query_calls',
    title: 'Query calls',
    description:
      'Lists calls (spans of traced ops) of a project, newest first unless sort_by says otherwise, filtered ' +
      'like POST /calls/stream_query. Returns a page; next_offset says how to get the next one.',
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        filter: Loose(FILTER_DOC),
        query: Loose(QUERY_DOC),
        sort_by: Type.Optional(
          Type.Array(
            Type.Object({ field: Type.String(), direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) }),
            {
              description: 'Sort keys, e.g. [{"field":"started_at","direction":"desc"}] (the default).',
            },
          ),
        ),
        columns: Type.Optional(
          Type.Array(Type.String(), { description: 'Only these columns (e.g. ["id","op_name","output"]).' }),
        ),
        include_feedback: Type.Optional(Type.Boolean({ description: "Add each call's feedback." })),
        include_costs: Type.Optional(Type.Boolean({ description: "Add each call's costs." })),
        limit: Limit(),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const limit = pageLimit(a.limit as number | undefined);
      const offset = (a.offset as number | undefined) ?? 0;
      const { items, page: info } = await page(
        caller,
        {
          project_id: a.project_id,
          filter: a.filter,
          query: a.query,
          sort_by: a.sort_by ?? [{ field: 'started_at', direction: 'desc' }],
          columns: a.columns,
          include_feedback: a.include_feedback,
          include_costs: a.include_costs,
        },
        limit,
        offset,
      );
      return { calls: items, ...info };
    },
  };

  const countCalls: McpTool = {
    name: 'count_calls',
    title: 'Count calls',
    description: 'Counts the calls of a project that match a filter and query (as POST /calls/query_stats).',
    readOnly: true,
    input: Type.Object(
      { project_id: ProjectId, filter: Loose(FILTER_DOC), query: Loose(QUERY_DOC) },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const res = await calls.callsQueryStats(
        caller,
        statsReq(defined({ project_id: a.project_id, filter: a.filter, query: a.query })),
      );
      return { count: res.count };
    },
  };

  const getCall: McpTool = {
    name: 'get_call',
    title: 'Open a call',
    description:
      'One call in full: inputs, output, exception, attributes, summary, feedback and costs. Long values ' +
      'are shortened to fit (truncated: true says so).',
    readOnly: true,
    input: Type.Object(
      { project_id: ProjectId, call_id: Type.String({ minLength: 1, description: 'The call id.' }) },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const text = await calls.callRead(caller, {
        project_id: a.project_id as string,
        id: a.call_id as string,
        include_feedback: true,
        include_costs: true,
      });
      const { call } = JSON.parse(text) as { call: unknown };
      if (call === null) throw new NotFoundError(`Call ${String(a.call_id)} not found in ${String(a.project_id)}`);
      const fitted = fitValue(call, MAX_RESULT_CHARS - 200);
      return fitted.truncated ? { call: fitted.value, truncated: true } : { call };
    },
  };

  const getTrace: McpTool = {
    name: 'get_trace',
    title: 'Open a trace',
    description:
      'The calls of one trace in start order, as an outline (id, parent_id, op_name, times, exception, summary); ' +
      'open a call with get_call for its inputs and output.',
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        trace_id: Type.String({ minLength: 1, description: "The trace id (a call's trace_id)." }),
        limit: Limit(500, 200),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const limit = pageLimit(a.limit as number | undefined, 500, 200);
      const offset = (a.offset as number | undefined) ?? 0;
      const { items, page: info } = await page(
        caller,
        {
          project_id: a.project_id,
          filter: { trace_ids: [a.trace_id] },
          sort_by: [{ field: 'started_at', direction: 'asc' }],
          columns: OUTLINE_COLUMNS,
        },
        limit,
        offset,
      );
      if (items.length === 0 && offset === 0)
        throw new NotFoundError(`Trace ${String(a.trace_id)} has no calls in ${String(a.project_id)}`);
      return { trace_id: a.trace_id, calls: items, ...info };
    },
  };

  const queryThreads: McpTool = {
    name: 'query_threads',
    title: 'List threads',
    description:
      'Conversation threads of a project (as POST /threads/stream_query): turn counts, first and last turn, ' +
      "turn latency; most recently updated first. get_thread reads one thread's turns.",
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        thread_ids: Type.Optional(Type.Array(Type.String(), { description: 'Only these threads.' })),
        after_datetime: Type.Optional(Type.String({ description: 'Turns started after this ISO 8601 time.' })),
        before_datetime: Type.Optional(Type.String({ description: 'Turns started before this ISO 8601 time.' })),
        limit: Limit(),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const limit = pageLimit(a.limit as number | undefined);
      const offset = (a.offset as number | undefined) ?? 0;
      const filter = defined({
        thread_ids: a.thread_ids,
        after_datetime: a.after_datetime,
        before_datetime: a.before_datetime,
      });
      const req = threadsReq({
        project_id: a.project_id,
        filter,
        limit: limit + 1,
        offset,
        sort_by: [{ field: 'last_updated', direction: 'desc' }],
      });
      const rows = await takeLines(await threads.threadsQueryStream(caller, req), limit + 1);
      const { items, page: info } = fitPage(rows.slice(0, limit), offset, rows.length > limit);
      return { threads: items, ...info };
    },
  };

  const getThread: McpTool = {
    name: 'get_thread',
    title: 'Read a thread',
    description: "The turns of one conversation thread in order: each turn call's inputs, output and exception.",
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        thread_id: Type.String({ minLength: 1, description: 'The thread id.' }),
        limit: Limit(),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const limit = pageLimit(a.limit as number | undefined);
      const offset = (a.offset as number | undefined) ?? 0;
      const { items, page: info } = await page(
        caller,
        {
          project_id: a.project_id,
          filter: { thread_ids: [a.thread_id] },
          query: TURN_QUERY,
          sort_by: [{ field: 'started_at', direction: 'asc' }],
          columns: ['id', 'op_name', 'started_at', 'ended_at', 'inputs', 'output', 'exception'],
        },
        limit,
        offset,
      );
      return { thread_id: a.thread_id, turns: items, ...info };
    },
  };

  return [queryCalls, countCalls, getCall, getTrace, queryThreads, getThread];
}
