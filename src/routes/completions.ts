import * as S from '../schemas/completions.js';
import type { Services } from '../services/index.js';
import { sendJsonlLive } from './jsonl.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Completions'];

async function* jsonLines(chunks: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield `${JSON.stringify(chunk)}\n`;
}

/**
 * Weave's LLM proxy: `/completions/create` answers the provider's completion (and the recorded
 * call's id); `/completions/create_stream` sends its chunks as JSON Lines while they come.
 */
export default async function completionRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { completions } = services.evaluations;
  jsonPost(app, tags)(
    '/completions/create',
    { summary: 'Completions Create', body: S.CompletionsCreateReq, ok: S.CompletionsCreateRes },
    (caller, body) => completions.create(caller, body),
  );
  app.post(
    '/completions/create_stream',
    { schema: { tags, summary: 'Completions Create Stream', body: S.CompletionsCreateReq } },
    async (request, reply) => sendJsonlLive(reply, jsonLines(completions.createStream(request.caller, request.body))),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts): a run records a call. */
export const completionsArea = routeArea('completions', completionRoutes, {
  'POST /completions/create': 'write',
  'POST /completions/create_stream': 'write',
});
