import * as S from '../schemas/alerts.js';
import { ProjectPathParams } from '../schemas/projects.js';
import type { Services } from '../services/index.js';
import { paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Alerts'];

/** Alerts' states, history with deliveries, and muting (docs/alerts.md); specs are AlertSpec objects. */
export default async function alertRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { alerts } = services;
  const route = paramsRoutes(app, tags);
  const base = '/projects/:entity/:project/alerts';
  const projectOf = (p: { entity: string; project: string }): string => `${p.entity}/${p.project}`;
  route.withParams(
    'GET',
    base,
    { summary: "The project's alerts and their states", params: ProjectPathParams, ok: S.AlertListRes },
    (caller, params) => alerts.list(caller, projectOf(params)),
  );
  route.withQuery(
    'GET',
    `${base}/:alert_id/history`,
    {
      summary: "An alert's state changes, newest first, with each notification's delivery",
      params: S.AlertParams,
      querystring: S.AlertHistoryQuery,
      ok: S.AlertHistoryRes,
    },
    (caller, params, query) => alerts.history(caller, projectOf(params), params.alert_id, query.limit ?? 100),
  );
  route.withBody(
    'PUT',
    `${base}/:alert_id/mute`,
    {
      summary: 'Mute or unmute an alert (a muted alert keeps its state and history and notifies no one)',
      params: S.AlertParams,
      body: S.AlertMuteReq,
      ok: S.AlertMuteRes,
    },
    (caller, params, body) => alerts.mute(caller, projectOf(params), params.alert_id, body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const alertsArea = routeArea('alerts', alertRoutes, {
  // the specs are AlertSpec objects (/obj/create)
  'GET /projects/:entity/:project/alerts': 'read',
  'GET /projects/:entity/:project/alerts/:alert_id/history': 'read',
  'PUT /projects/:entity/:project/alerts/:alert_id/mute': 'write',
});
