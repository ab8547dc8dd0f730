import { Type } from '@sinclair/typebox';
import type { QueryReq } from '../../schemas/calls.js';
import type { CallQueryService } from '../call-query-service.js';
import type { EvalResultsService } from '../evaluations/eval-results-service.js';
import { fitPage, fitValue, MAX_RESULT_CHARS, pageLimit } from './mcp-bounds.js';
import type { McpTool } from './mcp-tool.js';
import { Limit, Offset, ProjectId, takeLines } from './tool-args.js';

/** An evaluation is an `Evaluation.evaluate` call, its op a ref or the bare name (docs/spec/evaluations.md §3.3). */
const EVALUATION_QUERY: QueryReq = {
  $expr: {
    $or: [
      { $eq: [{ $getField: 'op_name' }, { $literal: 'Evaluation.evaluate' }] },
      { $contains: { input: { $getField: 'op_name' }, substr: { $literal: '/Evaluation.evaluate:' } } },
    ],
  },
};

const EVALUATION_COLUMNS = ['id', 'op_name', 'display_name', 'started_at', 'ended_at', 'exception', 'inputs', 'output'];

export function evaluationTools(calls: CallQueryService, results: EvalResultsService): McpTool[] {
  const listEvaluations: McpTool = {
    name: 'list_evaluations',
    title: 'List evaluations',
    description:
      'Evaluation runs of a project (Evaluation.evaluate calls), newest first: the evaluation and model refs ' +
      '(inputs) and the aggregated scores (output). compare_evaluations sets several side by side.',
    readOnly: true,
    input: Type.Object({ project_id: ProjectId, limit: Limit(), offset: Offset }, { additionalProperties: false }),
    run: async (caller, a) => {
      const limit = pageLimit(a.limit as number | undefined);
      const offset = (a.offset as number | undefined) ?? 0;
      const lines = await calls.callsQueryStream(caller, {
        project_id: a.project_id as string,
        query: EVALUATION_QUERY,
        sort_by: [{ field: 'started_at', direction: 'desc' }],
        columns: EVALUATION_COLUMNS,
        limit: limit + 1,
        offset,
      });
      const rows = await takeLines(lines, limit + 1);
      const { items, page } = fitPage(rows.slice(0, limit), offset, rows.length > limit);
      return { evaluations: items, ...page };
    },
  };

  const compareEvaluations: McpTool = {
    name: 'compare_evaluations',
    title: 'Compare evaluations',
    description:
      'Sets evaluation runs side by side (as POST /v2/{entity}/{project}/eval_results/query): per scorer, ' +
      'the mean, pass counts and trial counts of each run; with include_rows, a page of dataset rows with ' +
      "every run's trials (model output and scores) for that row.",
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        evaluation_call_ids: Type.Array(Type.String({ minLength: 1 }), {
          minItems: 1,
          maxItems: 10,
          description: 'Evaluation.evaluate call ids (list_evaluations gives them).',
        }),
        include_rows: Type.Optional(Type.Boolean({ description: 'Also a page of rows (default false).' })),
        limit: Limit(50, 10),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const includeRows = a.include_rows === true;
      const limit = pageLimit(a.limit as number | undefined, 50, 10);
      const offset = (a.offset as number | undefined) ?? 0;
      const res = await results.query(caller, a.project_id as string, {
        evaluation_call_ids: a.evaluation_call_ids as string[],
        include_summary: true,
        include_rows: includeRows,
        include_raw_data_rows: includeRows,
        limit,
        offset,
      });
      const summary = fitValue(res.summary, Math.floor(MAX_RESULT_CHARS / 3));
      const out: Record<string, unknown> = { summary: summary.value, warnings: res.warnings };
      if (summary.truncated) out.summary_truncated = true;
      if (!includeRows) return { ...out, total_rows: res.summary?.row_count ?? 0 };
      const { items, page } = fitPage(
        res.rows,
        offset,
        offset + res.rows.length < res.total_rows,
        Math.floor((MAX_RESULT_CHARS * 2) / 3) - 1_000,
      );
      return { ...out, total_rows: res.total_rows, rows: items, ...page };
    },
  };

  return [listEvaluations, compareEvaluations];
}
