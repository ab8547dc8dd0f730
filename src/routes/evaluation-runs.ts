import type { FastifyRequest } from 'fastify';
import * as S from '../schemas/evaluation-runs.js';
import { ProjectParams } from '../schemas/calls-v2.js';
import type { Services } from '../services/index.js';
import { listOf } from '../services/evaluations/eval-calls.js';
import { sendJsonl } from './jsonl.js';
import type { RouteApp } from './route-app.js';

/**
 * Evaluation runs, predictions and scores (docs/spec/evaluations.md §3), and `eval_results/query`
 * (§4). Every resource is made of calls, so all of it is also visible through the calls API.
 */

/** A finish may be sent without a body; it then means `{}`. */
const emptyBodyIsObject = async (request: FastifyRequest): Promise<void> => {
  request.body ??= {};
};

const projectOf = ({ entity, project }: { entity: string; project: string }): string => `${entity}/${project}`;

export default async function evaluationRunRoutes(app: RouteApp, { services }: { services: Services }) {
  const { runs, predictions, scores, results } = services.evaluations;
  const base = '/v2/:entity/:project';

  // ---------------------------------------------------------------- evaluation runs
  const runTags = ['Evaluation Runs'];
  app.post(
    `${base}/evaluation_runs`,
    {
      schema: {
        tags: runTags,
        summary: 'Evaluation Run Create',
        params: ProjectParams,
        body: S.EvaluationRunCreateBody,
        response: { 200: S.EvaluationRunCreateRes },
      },
    },
    (request) => runs.create(request.caller, projectOf(request.params), request.body),
  );
  app.get(
    `${base}/evaluation_runs/:evaluation_run_id`,
    {
      schema: {
        tags: runTags,
        summary: 'Evaluation Run Read',
        params: S.EvaluationRunParams,
        response: { 200: S.EvaluationRunReadRes },
      },
    },
    (request) => {
      const params = request.params;
      return runs.read(request.caller, projectOf(params), params.evaluation_run_id);
    },
  );
  app.get(
    `${base}/evaluation_runs`,
    {
      schema: {
        tags: runTags,
        summary: 'Evaluation Run List',
        params: ProjectParams,
        querystring: S.EvaluationRunListQuery,
      },
    },
    (request, reply) => sendJsonl(reply, runs.list(request.caller, projectOf(request.params), request.query)),
  );
  app.delete(
    `${base}/evaluation_runs`,
    {
      schema: {
        tags: runTags,
        summary: 'Evaluation Run Delete',
        params: ProjectParams,
        querystring: S.EvaluationRunDeleteQuery,
        response: { 200: S.NumDeletedRes },
      },
    },
    (request) => runs.delete(request.caller, projectOf(request.params), listOf(request.query.evaluation_run_ids)),
  );
  app.post(
    `${base}/evaluation_runs/:evaluation_run_id/finish`,
    {
      schema: {
        tags: runTags,
        summary: 'Evaluation Run Finish',
        params: S.EvaluationRunParams,
        body: S.EvaluationRunFinishBody,
        response: { 200: S.SuccessRes },
      },
      preValidation: emptyBodyIsObject,
    },
    (request) => {
      const params = request.params;
      const body = request.body;
      return runs.finish(request.caller, projectOf(params), params.evaluation_run_id, body.summary);
    },
  );

  // ---------------------------------------------------------------- predictions
  const predictionTags = ['Predictions'];
  app.post(
    `${base}/predictions`,
    {
      schema: {
        tags: predictionTags,
        summary: 'Prediction Create',
        params: ProjectParams,
        body: S.PredictionCreateBody,
        response: { 200: S.PredictionCreateRes },
      },
    },
    (request) => predictions.create(request.caller, projectOf(request.params), request.body),
  );
  app.get(
    `${base}/predictions/:prediction_id`,
    {
      schema: {
        tags: predictionTags,
        summary: 'Prediction Read',
        params: S.PredictionParams,
        response: { 200: S.PredictionReadRes },
      },
    },
    (request) => {
      const params = request.params;
      return predictions.read(request.caller, projectOf(params), params.prediction_id);
    },
  );
  app.get(
    `${base}/predictions`,
    {
      schema: {
        tags: predictionTags,
        summary: 'Prediction List',
        params: ProjectParams,
        querystring: S.ChildListQuery,
      },
    },
    (request, reply) => sendJsonl(reply, predictions.list(request.caller, projectOf(request.params), request.query)),
  );
  app.delete(
    `${base}/predictions`,
    {
      schema: {
        tags: predictionTags,
        summary: 'Prediction Delete',
        params: ProjectParams,
        querystring: S.PredictionDeleteQuery,
        response: { 200: S.NumDeletedRes },
      },
    },
    (request) => predictions.delete(request.caller, projectOf(request.params), listOf(request.query.prediction_ids)),
  );
  app.post(
    `${base}/predictions/:prediction_id/finish`,
    {
      schema: {
        tags: predictionTags,
        summary: 'Prediction Finish',
        params: S.PredictionParams,
        body: S.PredictionFinishBody,
        response: { 200: S.SuccessRes },
      },
      preValidation: emptyBodyIsObject,
    },
    (request) => {
      const params = request.params;
      return predictions.finish(request.caller, projectOf(params), params.prediction_id);
    },
  );

  // ---------------------------------------------------------------- scores
  const scoreTags = ['Scores'];
  app.post(
    `${base}/scores`,
    {
      schema: {
        tags: scoreTags,
        summary: 'Score Create',
        params: ProjectParams,
        body: S.ScoreCreateBody,
        response: { 200: S.ScoreCreateRes },
      },
    },
    (request) => scores.create(request.caller, projectOf(request.params), request.body),
  );
  app.get(
    `${base}/scores/:score_id`,
    { schema: { tags: scoreTags, summary: 'Score Read', params: S.ScoreParams, response: { 200: S.ScoreReadRes } } },
    (request) => {
      const params = request.params;
      return scores.read(request.caller, projectOf(params), params.score_id);
    },
  );
  app.get(
    `${base}/scores`,
    { schema: { tags: scoreTags, summary: 'Score List', params: ProjectParams, querystring: S.ChildListQuery } },
    (request, reply) => sendJsonl(reply, scores.list(request.caller, projectOf(request.params), request.query)),
  );
  app.delete(
    `${base}/scores`,
    {
      schema: {
        tags: scoreTags,
        summary: 'Score Delete',
        params: ProjectParams,
        querystring: S.ScoreDeleteQuery,
        response: { 200: S.NumDeletedRes },
      },
    },
    (request) => scores.delete(request.caller, projectOf(request.params), listOf(request.query.score_ids)),
  );

  // ---------------------------------------------------------------- eval results
  app.post(
    `${base}/eval_results/query`,
    {
      schema: {
        tags: ['Evaluations'],
        summary: 'Eval Results Query',
        params: ProjectParams,
        body: S.EvalResultsQueryBody,
        response: { 200: S.EvalResultsQueryRes },
      },
    },
    (request) => results.query(request.caller, projectOf(request.params), request.body),
  );
}
