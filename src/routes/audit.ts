import * as S from '../schemas/audit.js';
import type { Services } from '../services/index.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Administration'];

/** The audit log and members' roles (services/audit-service.ts; docs/roles-and-audit.md). Admin routes (plugins/route-access.ts). */
export default async function auditRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { auditLog, memberships } = services;
  app.get(
    '/audit',
    {
      schema: {
        tags,
        summary: "An entity's audit log, newest first (entity or instance admins)",
        querystring: S.AuditQuery,
        response: { 200: S.AuditRes },
      },
    },
    (request) => auditLog.list(request.caller, request.query),
  );
  const post = jsonPost(app, tags);
  post(
    '/memberships/query',
    {
      summary: "An entity's members and their roles (entity or instance admins)",
      body: S.MembershipQueryReq,
      ok: S.MembershipQueryRes,
    },
    (caller, body) => memberships.query(caller, body),
  );
  post(
    '/memberships/update',
    {
      summary: "Set a member's role: admin, member or viewer (entity or instance admins)",
      body: S.MembershipUpdateReq,
      ok: S.MembershipUpdateRes,
    },
    (caller, body) => memberships.update(caller, body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const auditArea = routeArea('audit', auditRoutes, {
  'POST /memberships/update': 'admin',
  'POST /memberships/query': 'admin',
  'GET /audit': 'admin',
});
