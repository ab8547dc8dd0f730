import { Type } from '@sinclair/typebox';
import { FreeObject, Nullable, NullableLaxBool, NullableLaxInt } from '../schemas/common.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** Not strict: unknown keys are ignored (docs/spec/objects.md §0, §6.4). */
const ImageGenerationCreateReq = Type.Object({
  project_id: Type.String(),
  inputs: Type.Object({ model: Type.String(), prompt: Type.String(), n: NullableLaxInt() }),
  wb_user_id: Nullable(Type.String()),
  track_llm_call: NullableLaxBool(),
});

const ImageGenerationCreateRes = Type.Object({
  response: FreeObject(),
  weave_call_id: Type.Union([Type.String(), Type.Null()]),
});

/** `/image/create` (docs/spec/objects.md §6.4). */
export default async function imagesRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  app.post(
    '/image/create',
    { schema: { tags: ['Images'], body: ImageGenerationCreateReq, response: { 200: ImageGenerationCreateRes } } },
    (request) => services.images.create(request.caller, request.body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const imagesArea = routeArea('images', imagesRoutes, {
  'POST /image/create': 'write',
});
