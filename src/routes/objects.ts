import { useLosslessJsonBodies } from '../plugins/lossless-json-body.js';
import { EmptyRes } from '../schemas/common.js';
import * as S from '../schemas/objects.js';
import type { Services } from '../services/index.js';
import { sendJsonText } from './jsonl.js';
import { jsonPost, paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Objects'];

/** The objects API (docs/spec/objects.md §3). */
export default async function objectsRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { objects, objectLabels } = services;

  // values are hashed, so this route alone parses its body keeping number literals (§1.2)
  await app.register(async (lossless: RouteApp) => {
    useLosslessJsonBodies(lossless);
    jsonPost(lossless, tags)('/obj/create', { body: S.ObjCreateReq, ok: S.ObjCreateRes }, (caller, body) =>
      objects.objCreate(caller, body),
    );
  });

  app.post(
    '/obj/read',
    { schema: { tags, body: S.ObjReadReq, response: { 200: S.ObjReadRes } } },
    async (request, reply) => sendJsonText(reply, await objects.objRead(request.caller, request.body)),
  );

  jsonPost(app, tags)('/obj/delete', { body: S.ObjDeleteReq, ok: S.ObjDeleteRes }, (caller, body) =>
    objects.objDelete(caller, body),
  );

  app.post(
    '/objs/query',
    { schema: { tags, body: S.ObjQueryReq, response: { 200: S.ObjQueryRes } } },
    async (request, reply) => sendJsonText(reply, await objects.objsQuery(request.caller, request.body)),
  );

  const route = paramsRoutes(app, tags);
  const versionTags = { params: S.ObjVersionParams, body: S.ObjTagsBody, ok: EmptyRes };
  route.withBody(
    'PUT',
    '/objs/:object_id/versions/:digest/tags',
    { summary: 'Obj Add Tags', ...versionTags },
    (caller, params, body) => objectLabels.addTags(caller, params.object_id, params.digest, body),
  );
  route.withBody(
    'POST',
    '/objs/:object_id/versions/:digest/tags/remove',
    { summary: 'Obj Remove Tags', ...versionTags },
    (caller, params, body) => objectLabels.removeTags(caller, params.object_id, params.digest, body),
  );
  route.withBody(
    'PUT',
    '/objs/:object_id/aliases',
    { summary: 'Obj Set Aliases', params: S.ObjParams, body: S.ObjSetAliasesBody, ok: EmptyRes },
    (caller, params, body) => objectLabels.setAliases(caller, params.object_id, body),
  );
  route.withBody(
    'POST',
    '/objs/:object_id/aliases/remove',
    { summary: 'Obj Remove Aliases', params: S.ObjParams, body: S.ObjRemoveAliasesBody, ok: EmptyRes },
    (caller, params, body) => objectLabels.removeAliases(caller, params.object_id, body),
  );

  app.get(
    '/tags',
    { schema: { tags, summary: 'Tags List', querystring: S.ProjectQuery, response: { 200: S.TagsListRes } } },
    (request) => objectLabels.listTags(request.caller, request.query.project_id),
  );

  app.get(
    '/aliases',
    { schema: { tags, summary: 'Aliases List', querystring: S.ProjectQuery, response: { 200: S.AliasesListRes } } },
    (request) => objectLabels.listAliases(request.caller, request.query.project_id),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const objectsArea = routeArea('objects', objectsRoutes, {
  'POST /obj/create': 'write',
  'POST /obj/delete': 'write',
  'POST /obj/read': 'read',
  'POST /objs/query': 'read',
  'PUT /objs/:object_id/versions/:digest/tags': 'write',
  'POST /objs/:object_id/versions/:digest/tags/remove': 'write',
  'PUT /objs/:object_id/aliases': 'write',
  'POST /objs/:object_id/aliases/remove': 'write',
  'GET /tags': 'read',
  'GET /aliases': 'read',
});
