import type { FastifyInstance } from 'fastify';
import * as S from '../schemas/keys.js';
import type { Services } from '../services/index.js';

/** API key management over HTTP (services/key-admin-service.ts says who may). */
export default async function keyRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const { keyAdmin } = services;
  const tags = ['Keys'];
  app.post(
    '/keys/create',
    {
      schema: {
        tags,
        summary: 'Create an API key for a user of an entity',
        body: S.KeyCreateReq,
        response: { 200: S.KeyCreateRes },
      },
    },
    (request) => keyAdmin.create(request.caller, request.body as S.KeyCreateReq),
  );
  app.post(
    '/keys/query',
    {
      schema: {
        tags,
        summary: 'List API keys (never their secrets)',
        body: S.KeyQueryReq,
        response: { 200: S.KeyQueryRes },
      },
    },
    (request) => keyAdmin.query(request.caller, request.body as S.KeyQueryReq),
  );
  app.post(
    '/keys/revoke',
    { schema: { tags, summary: 'Revoke an API key', body: S.KeyRevokeReq, response: { 200: S.KeyRevokeRes } } },
    (request) => keyAdmin.revoke(request.caller, request.body as S.KeyRevokeReq),
  );
}
