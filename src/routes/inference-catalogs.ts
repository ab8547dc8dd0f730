import * as S from '../schemas/inference-catalog.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

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

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const inferenceCatalogArea = routeArea('inference-catalogs', inferenceCatalogRoutes, {
  'GET /inference/analysis/:partner/models': 'read',
  'GET /inference/router/:partner/models': 'read',
  'GET /inference/:partner/v2/hardware': 'read',
});
