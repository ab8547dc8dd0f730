import * as S from '../schemas/evaluations-server.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

const tags = ['Evaluations'];

/**
 * Server-side evaluation (docs/spec/evaluations.md §5–§6): `/evaluations/evaluate_model` and
 * `/calls/score` check synchronously, enqueue background jobs and answer at once; the status read
 * follows a run's calls.
 */
export default async function evaluationServerRoutes(
  app: RouteApp,
  { services }: { services: Services },
): Promise<void> {
  const { server } = services.evaluations;
  const jobs = services.evaluationJobs;
  app.post(
    '/evaluations/evaluate_model',
    {
      schema: {
        tags,
        summary: 'Evaluate Model',
        body: S.EvaluateModelReq,
        response: { 200: S.EvaluateModelRes },
      },
    },
    (request) => jobs.evaluateModel(request.caller, request.body),
  );
  app.post(
    '/calls/score',
    {
      schema: {
        tags: ['Calls'],
        summary: 'Calls Score',
        body: S.CallsScoreReq,
        response: { 200: S.CallsScoreRes },
      },
    },
    (request) => jobs.scoreCalls(request.caller, request.body),
  );
  app.post(
    '/evaluations/status',
    {
      schema: {
        tags,
        summary: 'Evaluation Status',
        body: S.EvaluationStatusReq,
        response: { 200: S.EvaluationStatusRes },
      },
    },
    (request) => server.status(request.caller, request.body.project_id, request.body.call_id),
  );
}
