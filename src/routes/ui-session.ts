import {
  checkCsrf,
  checkOrigin,
  clearSessionCookie,
  readSessionCookie,
  setSessionCookie,
} from '../plugins/session-cookie.js';
import { ErrorRes } from '../schemas/common.js';
import * as S from '../schemas/ui.js';
import type { Services } from '../services/index.js';
import { SessionService } from '../services/session-service.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Web UI'];

/** Browser sessions of the web UI (`/auth/session`) and the project list it opens on. */
export default async function uiSessionRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { sessions, projectList } = services;

  app.post(
    '/auth/session',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Sign in: trade an API key for a session cookie',
        body: S.SessionCreateReq,
        response: { 200: S.SessionRes, 401: ErrorRes, 403: ErrorRes },
      },
    },
    async (request, reply) => {
      // a cross-site page must not sign the browser in to an account of the page's choosing
      checkOrigin(request);
      const { token, caller } = await sessions.signIn(request.body.api_key);
      setSessionCookie(request, reply, token, sessions.ttlSeconds);
      reply.header('cache-control', 'no-store');
      return SessionService.view(caller);
    },
  );

  app.get(
    '/auth/session',
    { schema: { tags, summary: 'The signed-in user', response: { 200: S.SessionRes, 401: ErrorRes } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return SessionService.view(request.caller);
    },
  );

  app.delete(
    '/auth/session',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Sign out: end the session and clear its cookie',
        response: { 204: { type: 'null', description: 'Signed out' }, 403: ErrorRes },
      },
    },
    async (request, reply) => {
      const token = readSessionCookie(request);
      if (token !== null) {
        checkCsrf(request);
        await sessions.signOut(token);
      }
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    },
  );

  app.get(
    '/projects',
    {
      schema: {
        tags,
        summary: "Projects of the caller's entities, latest call first",
        response: { 200: S.ProjectListRes },
      },
    },
    async (request) => projectList.list(request.caller),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const uiSessionArea = routeArea('ui-session', uiSessionRoutes, {
  'GET /auth/session': 'read',
  'GET /projects': 'read',
});
