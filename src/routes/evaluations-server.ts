import * as S from '../schemas/evaluations-server.js';
import type { Services } from '../services/index.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

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
  const post = jsonPost(app, tags);
  post(
    '/evaluations/evaluate_model',
    { summary: 'Evaluate Model', body: S.EvaluateModelReq, ok: S.EvaluateModelRes },
    (caller, body) => jobs.evaluateModel(caller, body),
  );
  jsonPost(app, ['Calls'])(
    '/calls/score',
    { summary: 'Calls Score', body: S.CallsScoreReq, ok: S.CallsScoreRes },
    (caller, body) => jobs.scoreCalls(caller, body),
  );
  post(
    '/evaluations/status',
    { summary: 'Evaluation Status', body: S.EvaluationStatusReq, ok: S.EvaluationStatusRes },
    (caller, body) => server.status(caller, body.project_id, body.call_id),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const evaluationServerArea = routeArea('evaluations-server', evaluationServerRoutes, {
  'POST /evaluations/evaluate_model': 'write',
  'POST /calls/score': 'write',
  'POST /evaluations/status': 'read',
});
