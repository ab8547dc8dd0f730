import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { isJsonObject, isLosslessNumber } from '../domain/json-value.js';
import { useLosslessJsonBodies } from '../plugins/lossless-json-body.js';
import { ProjectParams } from '../schemas/calls-v2.js';
import * as S from '../schemas/v2-objects.js';
import type { Services } from '../services/index.js';
import { V2_FAMILIES } from '../services/v2-object-values.js';
import { sendJsonl } from './jsonl.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';
import type { RouteAccess } from '../plugins/route-access.js';

/** Per family: OpenAPI tag, create body/response and read response (docs/spec/evaluations.md §2.1). */
const FAMILY_ROUTES = {
  ops: { tag: 'Ops', create: S.OpCreateBody, created: S.OpCreateRes, read: S.OpReadRes },
  datasets: { tag: 'Datasets', create: S.DatasetCreateBody, created: S.DatasetCreateRes, read: S.DatasetReadRes },
  scorers: { tag: 'Scorers', create: S.ScorerCreateBody, created: S.ScorerCreateRes, read: S.ScorerReadRes },
  models: { tag: 'Models', create: S.ModelCreateBody, created: S.ModelCreateRes, read: S.ModelReadRes },
  evaluations: {
    tag: 'Evaluations',
    create: S.EvaluationCreateBody,
    created: S.EvaluationCreateRes,
    read: S.EvaluationReadRes,
  },
} as const;

const projectOf = ({ entity, project }: ProjectParams): string => `${entity}/${project}`;

/**
 * Bodies are parsed losslessly (rows and attributes are hashed), so an integral `trials` arrives as
 * a number literal object; it becomes a plain number before validation.
 */
function plainTrials(body: unknown): void {
  if (isJsonObject(body) && isLosslessNumber(body.trials) && /^-?\d+$/.test(body.trials.value)) {
    body.trials = Number(body.trials.value);
  }
}

function digestList(query: S.V2DeleteQuery): string[] | null {
  if (query.digests === undefined) return null;
  return Array.isArray(query.digests) ? query.digests : [query.digests];
}

/** A family's create route: its schemas, and the lossless body's `trials` made a plain number first. */
function createOptions<Body extends TSchema, Created extends TSchema>(spec: {
  tag: string;
  create: Body;
  created: Created;
}) {
  return {
    schema: {
      tags: [spec.tag],
      summary: `${spec.tag} Create`,
      params: ProjectParams,
      body: spec.create,
      response: { 200: spec.created },
    },
    preValidation: async (request: FastifyRequest) => plainTrials(request.body),
  };
}

/** The v2 object APIs: create, list, read and delete for ops, datasets, scorers, models and evaluations. */
export default async function v2ObjectRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { v2Objects } = services;
  await app.register(async (lossless: RouteApp) => {
    useLosslessJsonBodies(lossless);
    // one call per family, so each handler's body has its own family's type
    lossless.post('/v2/:entity/:project/ops', createOptions(FAMILY_ROUTES.ops), (request) =>
      v2Objects.opCreate(request.caller, projectOf(request.params), request.body),
    );
    lossless.post('/v2/:entity/:project/datasets', createOptions(FAMILY_ROUTES.datasets), (request) =>
      v2Objects.datasetCreate(request.caller, projectOf(request.params), request.body),
    );
    lossless.post('/v2/:entity/:project/scorers', createOptions(FAMILY_ROUTES.scorers), (request) =>
      v2Objects.scorerCreate(request.caller, projectOf(request.params), request.body),
    );
    lossless.post('/v2/:entity/:project/models', createOptions(FAMILY_ROUTES.models), (request) =>
      v2Objects.modelCreate(request.caller, projectOf(request.params), request.body),
    );
    lossless.post('/v2/:entity/:project/evaluations', createOptions(FAMILY_ROUTES.evaluations), (request) =>
      v2Objects.evaluationCreate(request.caller, projectOf(request.params), request.body),
    );
  });

  for (const family of V2_FAMILIES) {
    const spec = FAMILY_ROUTES[family];
    const tags = [spec.tag];
    app.get(
      `/v2/:entity/:project/${family}`,
      { schema: { tags, summary: `${spec.tag} List`, params: ProjectParams, querystring: S.V2ListQuery } },
      (request, reply) =>
        sendJsonl(reply, v2Objects.list(request.caller, projectOf(request.params), family, request.query)),
    );

    app.get(
      `/v2/:entity/:project/${family}/:object_id/versions/:digest`,
      {
        schema: {
          tags,
          summary: `${spec.tag} Read`,
          params: S.V2VersionParams,
          ...(family === 'ops' ? { querystring: S.OpReadQuery } : {}),
          response: { 200: spec.read },
        },
      },
      (request) => {
        const { object_id, digest } = request.params;
        return v2Objects.read(request.caller, projectOf(request.params), family, object_id, digest);
      },
    );

    app.delete(
      `/v2/:entity/:project/${family}/:object_id`,
      {
        schema: {
          tags,
          summary: `${spec.tag} Delete`,
          params: S.V2ObjectParams,
          querystring: S.V2DeleteQuery,
          response: { 200: S.V2DeleteRes },
        },
      },
      (request) =>
        v2Objects.delete(
          request.caller,
          projectOf(request.params),
          family,
          request.params.object_id,
          digestList(request.query),
        ),
    );
  }
}

const V2_OBJECT_FAMILIES = ['ops', 'datasets', 'scorers', 'models', 'evaluations'];

/** The families' routes: create and delete write, lists and versions read. */
function familyAccess(): Record<string, RouteAccess> {
  const table: Record<string, RouteAccess> = {};
  for (const family of V2_OBJECT_FAMILIES) {
    table[`POST /v2/:entity/:project/${family}`] = 'write';
    table[`GET /v2/:entity/:project/${family}`] = 'read';
    table[`GET /v2/:entity/:project/${family}/:object_id/versions/:digest`] = 'read';
    table[`DELETE /v2/:entity/:project/${family}/:object_id`] = 'write';
  }
  return table;
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const v2ObjectArea = routeArea('v2-objects', v2ObjectRoutes, {
  ...familyAccess(),
});
