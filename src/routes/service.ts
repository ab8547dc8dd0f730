import * as S from '../schemas/service.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Service'];

/** Health, version, server info, caller location, project info (docs/spec/otel-service-queues.md §B). */
export default async function serviceRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { info } = services;
  app.get(
    '/health',
    {
      config: { public: true, healthCheck: true },
      schema: { tags, summary: 'Read Root', response: { 200: S.HealthRes } },
    },
    async () => info.health(),
  );
  // a probe too (issue 35): never refused for load, so it answers during a burst; rate limited
  app.get(
    '/version',
    { config: { loadExempt: true }, schema: { tags, summary: 'Read Version', response: { 200: S.VersionRes } } },
    async () => info.version(),
  );
  app.get('/server_info', { schema: { tags, response: { 200: S.ServerInfoRes } } }, async () => info.serverInfo());
  app.get(
    '/geolocate',
    {
      schema: {
        tags,
        summary: 'Get Caller Location',
        querystring: S.GeolocateQuery,
        response: { 200: S.GeolocationRes },
      },
    },
    async (request) => info.geolocate(request.query.ip, request.ip),
  );
  app.post(
    '/service/projects_info',
    { schema: { tags, body: S.ProjectsInfoReq, response: { 200: S.ProjectsInfoRes } } },
    async (request) => {
      const { project_ids } = request.body;
      for (const id of project_ids) services.access.assertCanRead(request.caller, id);
      return info.projectsInfo(project_ids);
    },
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const serviceArea = routeArea('service', serviceRoutes, {
  'GET /version': 'read',
  'GET /server_info': 'read',
  'GET /geolocate': 'read',
  'POST /service/projects_info': 'read',
});
