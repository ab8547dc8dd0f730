import * as S from '../schemas/projects.js';
import type { Services } from '../services/index.js';
import { paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Projects'];

/** A project's row counts and its deletion (docs/export.md "Project deletion"). */
export default async function projectRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { projectAdmin } = services;
  const route = paramsRoutes(app, tags);
  route.withParams(
    'GET',
    '/projects/:entity/:project/usage',
    { summary: 'Rows stored for the project, per table', params: S.ProjectPathParams, ok: S.ProjectUsageRes },
    (caller, { entity, project }) => projectAdmin.usage(caller, entity, project),
  );
  route.withParams(
    'DELETE',
    '/projects/:entity/:project',
    {
      summary: 'Delete a project and all its data (entity or instance admins)',
      params: S.ProjectPathParams,
      ok: S.ProjectDeleteRes,
    },
    (caller, { entity, project }) => projectAdmin.deleteProject(caller, entity, project),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const projectArea = routeArea('projects', projectRoutes, {
  'GET /projects/:entity/:project/usage': 'read',
  'DELETE /projects/:entity/:project': 'admin',
});
