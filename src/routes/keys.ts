import * as S from '../schemas/keys.js';
import type { Services } from '../services/index.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** API key management over HTTP (services/key-admin-service.ts says who may). */
export default async function keyRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { keyAdmin } = services;
  const post = jsonPost(app, ['Keys']);
  post(
    '/keys/create',
    { summary: 'Create an API key for a user of an entity', body: S.KeyCreateReq, ok: S.KeyCreateRes },
    (caller, body) => keyAdmin.create(caller, body),
  );
  post(
    '/keys/query',
    { summary: 'List API keys (never their secrets)', body: S.KeyQueryReq, ok: S.KeyQueryRes },
    (caller, body) => keyAdmin.query(caller, body),
  );
  post('/keys/revoke', { summary: 'Revoke an API key', body: S.KeyRevokeReq, ok: S.KeyRevokeRes }, (caller, body) =>
    keyAdmin.revoke(caller, body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const keyArea = routeArea('keys', keyRoutes, {
  'POST /keys/create': 'admin',
  'POST /keys/query': 'admin',
  'POST /keys/revoke': 'admin',
});
