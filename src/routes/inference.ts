import { Type } from '@sinclair/typebox';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Training'];

/** OpenAI-compatible; unknown keys pass through to the trainer (docs/spec/training.md §4.10). */
const ChatCompletionRequest = Type.Object({
  model: Type.String(),
  messages: Type.Array(Type.Object({})),
});

/** `POST /v1/chat/completions` against checkpoints, and the training health routes (docs/spec/training.md §4.10, §4.11). */
export default async function inferenceRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { inference, runtime, workerInference } = services.training;
  app.post(
    '/v1/chat/completions',
    { schema: { tags, summary: 'Chat Completions', body: ChatCompletionRequest } },
    async (request) => inference.complete(request.caller, request.body),
  );

  app.get(
    '/v1/health',
    { config: { public: true, healthCheck: true }, schema: { tags, summary: 'Health' } },
    // Our choice: live external workers (docs/training-worker-protocol.md) by count and base model;
    // their ids and endpoints are not shown on this unauthenticated route.
    async () => ({
      status: 'ok',
      workers: await workerInference.health().catch(() => null),
    }),
  );
  app.get(
    '/v1/system-check',
    { config: { public: true }, schema: { tags, summary: 'System Check' } },
    async (_request, reply) => {
      const database = await timed(() => runtime.ping());
      const body = {
        api: true,
        database: database.success,
        training_queue: database,
        trainer: { success: true, duration: 0, error: null, name: runtime.trainer?.name ?? null },
      };
      return reply.code(database.success ? 200 : 503).send(body);
    },
  );
}

async function timed(
  check: () => Promise<void>,
): Promise<{ success: boolean; duration: number; error: string | null }> {
  const started = performance.now();
  try {
    await check();
    return { success: true, duration: (performance.now() - started) / 1000, error: null };
  } catch (error) {
    return {
      success: false,
      duration: (performance.now() - started) / 1000,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const inferenceArea = routeArea('inference', inferenceRoutes, {
  'POST /v1/chat/completions': 'read',
});
