import { useLosslessJsonBodies } from '../plugins/lossless-json-body.js';
import { EmptyRes } from '../schemas/common.js';
import * as S from '../schemas/objects.js';
import type { Services } from '../services/index.js';
import { sendJsonText } from './jsonl.js';
import { paramsBodySchema, type RouteApp } from './route-app.js';

const tags = ['Objects'];

/** The objects API (docs/spec/objects.md §3). */
export default async function objectsRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { objects, objectLabels } = services;

  // values are hashed, so this route alone parses its body keeping number literals (§1.2)
  await app.register(async (lossless: RouteApp) => {
    useLosslessJsonBodies(lossless);
    lossless.post(
      '/obj/create',
      { schema: { tags, body: S.ObjCreateReq, response: { 200: S.ObjCreateRes } } },
      (request) => objects.objCreate(request.caller, request.body),
    );
  });

  app.post(
    '/obj/read',
    { schema: { tags, body: S.ObjReadReq, response: { 200: S.ObjReadRes } } },
    async (request, reply) => sendJsonText(reply, await objects.objRead(request.caller, request.body)),
  );

  app.post('/obj/delete', { schema: { tags, body: S.ObjDeleteReq, response: { 200: S.ObjDeleteRes } } }, (request) =>
    objects.objDelete(request.caller, request.body),
  );

  app.post(
    '/objs/query',
    { schema: { tags, body: S.ObjQueryReq, response: { 200: S.ObjQueryRes } } },
    async (request, reply) => sendJsonText(reply, await objects.objsQuery(request.caller, request.body)),
  );

  app.put(
    '/objs/:object_id/versions/:digest/tags',
    {
      schema: paramsBodySchema('Objects', 'Obj Add Tags', {
        params: S.ObjVersionParams,
        body: S.ObjTagsBody,
        ok: EmptyRes,
      }),
    },
    (request) => {
      const params = request.params;
      return objectLabels.addTags(request.caller, params.object_id, params.digest, request.body);
    },
  );

  app.post(
    '/objs/:object_id/versions/:digest/tags/remove',
    {
      schema: paramsBodySchema('Objects', 'Obj Remove Tags', {
        params: S.ObjVersionParams,
        body: S.ObjTagsBody,
        ok: EmptyRes,
      }),
    },
    (request) => {
      const params = request.params;
      return objectLabels.removeTags(request.caller, params.object_id, params.digest, request.body);
    },
  );

  app.put(
    '/objs/:object_id/aliases',
    {
      schema: paramsBodySchema('Objects', 'Obj Set Aliases', {
        params: S.ObjParams,
        body: S.ObjSetAliasesBody,
        ok: EmptyRes,
      }),
    },
    (request) => objectLabels.setAliases(request.caller, request.params.object_id, request.body),
  );

  app.post(
    '/objs/:object_id/aliases/remove',
    {
      schema: paramsBodySchema('Objects', 'Obj Remove Aliases', {
        params: S.ObjParams,
        body: S.ObjRemoveAliasesBody,
        ok: EmptyRes,
      }),
    },
    (request) => objectLabels.removeAliases(request.caller, request.params.object_id, request.body),
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
