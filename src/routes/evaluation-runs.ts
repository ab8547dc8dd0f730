import type { FastifyRequest } from 'fastify';
import * as S from '../schemas/evaluation-runs.js';
import { ProjectParams } from '../schemas/calls-v2.js';
import type { Services } from '../services/index.js';
import { listOf } from '../services/evaluations/eval-calls.js';
import { sendJsonl } from './jsonl.js';
import { paramsBodySchema, type RouteApp } from './route-app.js';

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
    const tags = [r.tag];
    app.get(
      `${base}/${r.path}/:${r.idParam}`,
      { schema: { tags, summary: `${r.label} Read`, params: r.params, response: { 200: r.readRes } } },
      (request) => r.service.read(request.caller, projectOf(request.params), itemId(request.params)),
    );
    app.get(
      `${base}/${r.path}`,
      { schema: { tags, summary: `${r.label} List`, params: ProjectParams, querystring: r.listQuery } },
      (request, reply) => sendJsonl(reply, r.service.list(request.caller, projectOf(request.params), request.query)),
    );
    app.delete(
      `${base}/${r.path}`,
      {
        schema: {
          tags,
          summary: `${r.label} Delete`,
          params: ProjectParams,
          querystring: r.deleteQuery,
          response: { 200: S.NumDeletedRes },
        },
      },
      (request) => r.service.delete(request.caller, projectOf(request.params), idsToDelete(request.query)),
    );
  }

  app.post(
    `${base}/evaluation_runs`,
    {
      schema: paramsBodySchema('Evaluation Runs', 'Evaluation Run Create', {
        params: ProjectParams,
        body: S.EvaluationRunCreateBody,
        ok: S.EvaluationRunCreateRes,
      }),
    },
    (request) => runs.create(request.caller, projectOf(request.params), request.body),
  );
  app.post(
    `${base}/evaluation_runs/:evaluation_run_id/finish`,
    {
      schema: paramsBodySchema('Evaluation Runs', 'Evaluation Run Finish', {
        params: S.EvaluationRunParams,
        body: S.EvaluationRunFinishBody,
        ok: S.SuccessRes,
      }),
      preValidation: emptyBodyIsObject,
    },
    (request) =>
      runs.finish(request.caller, projectOf(request.params), request.params.evaluation_run_id, request.body.summary),
  );
  app.post(
    `${base}/predictions`,
    {
      schema: paramsBodySchema('Predictions', 'Prediction Create', {
        params: ProjectParams,
        body: S.PredictionCreateBody,
        ok: S.PredictionCreateRes,
      }),
    },
    (request) => predictions.create(request.caller, projectOf(request.params), request.body),
  );
  app.post(
    `${base}/predictions/:prediction_id/finish`,
    {
      schema: paramsBodySchema('Predictions', 'Prediction Finish', {
        params: S.PredictionParams,
        body: S.PredictionFinishBody,
        ok: S.SuccessRes,
      }),
      preValidation: emptyBodyIsObject,
    },
    (request) => predictions.finish(request.caller, projectOf(request.params), request.params.prediction_id),
  );
  app.post(
    `${base}/scores`,
    {
      schema: paramsBodySchema('Scores', 'Score Create', {
        params: ProjectParams,
        body: S.ScoreCreateBody,
        ok: S.ScoreCreateRes,
      }),
    },
    (request) => scores.create(request.caller, projectOf(request.params), request.body),
  );

  app.post(
    `${base}/eval_results/query`,
    {
      schema: paramsBodySchema('Evaluations', 'Eval Results Query', {
        params: ProjectParams,
        body: S.EvalResultsQueryBody,
        ok: S.EvalResultsQueryRes,
      }),
    },
    (request) => results.query(request.caller, projectOf(request.params), request.body),
  );
}
