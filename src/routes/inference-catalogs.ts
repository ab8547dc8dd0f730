import * as S from '../schemas/inference-catalog.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

const tags = ['Inference'];

/** Model and hardware catalogues (docs/spec/otel-service-queues.md §C). */
export default async function inferenceCatalogRoutes(
  app: RouteApp,
  { services }: { services: Services },
): Promise<void> {
  const { catalog } = services;
  app.get(
    '/inference/analysis/:partner/models',
    { schema: { tags, summary: 'Analysis Models', params: S.PartnerParams, response: { 200: S.RouterModelsRes } } },
    async (request) => catalog.analysisModels(request.params.partner),
  );
  app.get(
    '/inference/router/:partner/models',
    { schema: { tags, summary: 'Router Models', params: S.PartnerParams, response: { 200: S.RouterModelsRes } } },
    async (request) => catalog.routerModels(request.params.partner),
  );
  app.get(
    '/inference/:partner/v2/hardware',
    {
      schema: {
        tags,
        summary: 'Hardware Options',
        params: S.PartnerParams,
        querystring: S.HardwareQuery,
        response: { 200: S.HardwareRes },
      },
    },
    async (request) => catalog.hardware(request.params.partner, request.query.model),
  );
}
