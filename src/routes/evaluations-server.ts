import type { FastifyInstance } from 'fastify';
import * as S from '../schemas/evaluations-server.js';
import type { Services } from '../services/index.js';

/**
 * Server-side evaluation (docs/spec/evaluations.md §6). Only the status read is routed here;
 * `/evaluations/evaluate_model` and `/calls/score` enqueue jobs and arrive with the job queue.
 */
export default async function evaluationServerRoutes(
  app: FastifyInstance,
  { services }: { services: Services },
): Promise<void> {
  const { server } = services.evaluations;
  app.post(
    '/evaluations/status',
    {
      schema: {
        tags: ['Evaluations'],
        summary: 'Evaluation Status',
        body: S.EvaluationStatusReq,
        response: { 200: S.EvaluationStatusRes },
      },
    },
    (request) => {
      const body = request.body as S.EvaluationStatusReq;
      return server.status(request.caller, body.project_id, body.call_id);
    },
  );
}
