import type { FastifyRequest } from 'fastify';
import * as S from '../schemas/evaluation-runs.js';
import { ProjectParams } from '../schemas/calls-v2.js';
import type { Services } from '../services/index.js';
import { listOf } from '../services/evaluations/eval-calls.js';
import { sendJsonl } from './jsonl.js';
import { paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';
import type { RouteAccess } from '../plugins/route-access.js';

/**
 * Evaluation runs, predictions and scores (docs/spec/evaluations.md §3), and `eval_results/query`
 * (§4). Every resource is made of calls, so all of it is also visible through the calls API.
 */

/** A finish may be sent without a body; it then means `{}`. */
const emptyBodyIsObject = async (request: FastifyRequest): Promise<void> => {
  request.body ??= {};
};

const projectOf = ({ entity, project }: { entity: string; project: string }): string => `${entity}/${project}`;

type ItemParams = S.EvaluationRunParams | S.PredictionParams | S.ScoreParams;
type DeleteQuery = S.EvaluationRunDeleteQuery | S.PredictionDeleteQuery | S.ScoreDeleteQuery;

/** The id a read names, whichever resource's path parameter carries it. */
function itemId(params: ItemParams): string {
  if ('evaluation_run_id' in params) return params.evaluation_run_id;
  if ('prediction_id' in params) return params.prediction_id;
  return params.score_id;
}

/** The ids a delete names, whichever resource's query key carries them. */
function idsToDelete(query: DeleteQuery): string[] {
  if ('evaluation_run_ids' in query) return listOf(query.evaluation_run_ids);
  if ('prediction_ids' in query) return listOf(query.prediction_ids);
  return listOf(query.score_ids);
}

export default async function evaluationRunRoutes(app: RouteApp, { services }: { services: Services }) {
  const { runs, predictions, scores, results } = services.evaluations;
  const base = '/v2/:entity/:project';

  // read, list and delete: the same three routes for each call-backed resource
  const resources = [
    {
      path: 'evaluation_runs',
      idParam: 'evaluation_run_id',
      tag: 'Evaluation Runs',
      label: 'Evaluation Run',
      params: S.EvaluationRunParams,
      readRes: S.EvaluationRunReadRes,
      listQuery: S.EvaluationRunListQuery,
      deleteQuery: S.EvaluationRunDeleteQuery,
      service: runs,
    },
    {
      path: 'predictions',
      idParam: 'prediction_id',
      tag: 'Predictions',
      label: 'Prediction',
      params: S.PredictionParams,
      readRes: S.PredictionReadRes,
      listQuery: S.ChildListQuery,
      deleteQuery: S.PredictionDeleteQuery,
      service: predictions,
    },
    {
      path: 'scores',
      idParam: 'score_id',
      tag: 'Scores',
      label: 'Score',
      params: S.ScoreParams,
      readRes: S.ScoreReadRes,
      listQuery: S.ChildListQuery,
      deleteQuery: S.ScoreDeleteQuery,
      service: scores,
    },
  ] as const;
  for (const r of resources) {
    const route = paramsRoutes(app, [r.tag]);
    route.withParams(
      'GET',
      `${base}/${r.path}/:${r.idParam}`,
      { summary: `${r.label} Read`, params: r.params, ok: r.readRes },
      (caller, params) => r.service.read(caller, projectOf(params), itemId(params)),
    );
    app.get(
      `${base}/${r.path}`,
      { schema: { tags: [r.tag], summary: `${r.label} List`, params: ProjectParams, querystring: r.listQuery } },
      (request, reply) => sendJsonl(reply, r.service.list(request.caller, projectOf(request.params), request.query)),
    );
    route.withQuery(
      'DELETE',
      `${base}/${r.path}`,
      { summary: `${r.label} Delete`, params: ProjectParams, querystring: r.deleteQuery, ok: S.NumDeletedRes },
      (caller, params, query) => r.service.delete(caller, projectOf(params), idsToDelete(query)),
    );
  }

  const runRoute = paramsRoutes(app, ['Evaluation Runs']);
  runRoute.withBody(
    'POST',
    `${base}/evaluation_runs`,
    {
      summary: 'Evaluation Run Create',
      params: ProjectParams,
      body: S.EvaluationRunCreateBody,
      ok: S.EvaluationRunCreateRes,
    },
    (caller, params, body) => runs.create(caller, projectOf(params), body),
  );
  runRoute.withBody(
    'POST',
    `${base}/evaluation_runs/:evaluation_run_id/finish`,
    {
      summary: 'Evaluation Run Finish',
      params: S.EvaluationRunParams,
      body: S.EvaluationRunFinishBody,
      ok: S.SuccessRes,
    },
    (caller, params, body) => runs.finish(caller, projectOf(params), params.evaluation_run_id, body.summary),
    emptyBodyIsObject,
  );
  const predictionRoute = paramsRoutes(app, ['Predictions']);
  predictionRoute.withBody(
    'POST',
    `${base}/predictions`,
    { summary: 'Prediction Create', params: ProjectParams, body: S.PredictionCreateBody, ok: S.PredictionCreateRes },
    (caller, params, body) => predictions.create(caller, projectOf(params), body),
  );
  predictionRoute.withBody(
    'POST',
    `${base}/predictions/:prediction_id/finish`,
    { summary: 'Prediction Finish', params: S.PredictionParams, body: S.PredictionFinishBody, ok: S.SuccessRes },
    (caller, params) => predictions.finish(caller, projectOf(params), params.prediction_id),
    emptyBodyIsObject,
  );
  paramsRoutes(app, ['Scores']).withBody(
    'POST',
    `${base}/scores`,
    { summary: 'Score Create', params: ProjectParams, body: S.ScoreCreateBody, ok: S.ScoreCreateRes },
    (caller, params, body) => scores.create(caller, projectOf(params), body),
  );
  paramsRoutes(app, ['Evaluations']).withBody(
    'POST',
    `${base}/eval_results/query`,
    { summary: 'Eval Results Query', params: ProjectParams, body: S.EvalResultsQueryBody, ok: S.EvalResultsQueryRes },
    (caller, params, body) => results.query(caller, projectOf(params), body),
  );
}

/** Runs, predictions and scores: creating, finishing and deleting write, reads read. */
function runAccess(): Record<string, RouteAccess> {
  const table: Record<string, RouteAccess> = {};
  for (const kind of ['evaluation_runs', 'predictions', 'scores']) {
    const id = kind === 'evaluation_runs' ? 'evaluation_run_id' : kind === 'predictions' ? 'prediction_id' : 'score_id';
    table[`POST /v2/:entity/:project/${kind}`] = 'write';
    table[`GET /v2/:entity/:project/${kind}`] = 'read';
    table[`GET /v2/:entity/:project/${kind}/:${id}`] = 'read';
    table[`DELETE /v2/:entity/:project/${kind}`] = 'write';
  }
  table['POST /v2/:entity/:project/evaluation_runs/:evaluation_run_id/finish'] = 'write';
  table['POST /v2/:entity/:project/predictions/:prediction_id/finish'] = 'write';
  return table;
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const evaluationRunArea = routeArea('evaluation-runs', evaluationRunRoutes, {
  ...runAccess(),
  'POST /v2/:entity/:project/eval_results/query': 'read',
});
