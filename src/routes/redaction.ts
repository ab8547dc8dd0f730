import { ProjectPathParams } from '../schemas/projects.js';
import * as S from '../schemas/redaction.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Projects'];

/** The PII redaction applied to a project's writes and what it replaced (docs/redaction.md). */
export default async function redactionRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  app.get(
    '/projects/:entity/:project/redaction',
    {
      schema: {
        tags,
        summary: 'The kinds of personal data redacted on write in this project, and the counts redacted',
        params: ProjectPathParams,
        response: { 200: S.RedactionStatsRes },
      },
    },
    (request) => {
      const projectId = `${request.params.entity}/${request.params.project}`;
      services.access.assertCanRead(request.caller, projectId);
      return {
        project_id: projectId,
        kinds: [...services.redaction.kindsFor(projectId)],
        redacted: services.redaction.counts(projectId),
      };
    },
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const redactionArea = routeArea('redaction', redactionRoutes, {
  'GET /projects/:entity/:project/redaction': 'read',
});
