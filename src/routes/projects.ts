import * as S from '../schemas/projects.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

const tags = ['Projects'];

/** A project's row counts and its deletion (docs/export.md "Project deletion"). */
export default async function projectRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { projectAdmin } = services;
  app.get(
    '/projects/:entity/:project/usage',
    {
      schema: {
        tags,
        summary: 'Rows stored for the project, per table',
        params: S.ProjectPathParams,
        response: { 200: S.ProjectUsageRes },
      },
    },
    (request) => projectAdmin.usage(request.caller, request.params.entity, request.params.project),
  );
  app.delete(
    '/projects/:entity/:project',
    {
      schema: {
        tags,
        summary: 'Delete a project and all its data (entity or instance admins)',
        params: S.ProjectPathParams,
        response: { 200: S.ProjectDeleteRes },
      },
    },
    (request) => projectAdmin.deleteProject(request.caller, request.params.entity, request.params.project),
  );
}
