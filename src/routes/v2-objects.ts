import type { FastifyInstance } from 'fastify';
import { isLosslessNumber } from '../domain/json-value.js';
import { useLosslessJsonBodies } from '../plugins/lossless-json-body.js';
import { ProjectParams } from '../schemas/calls-v2.js';
import * as S from '../schemas/v2-objects.js';
import type { Services } from '../services/index.js';
import type { Caller } from '../services/auth-service.js';
import type { V2ObjectService } from '../services/v2-object-service.js';
import type { V2Family } from '../services/v2-object-values.js';
import { sendJsonl } from './jsonl.js';

/** Per family: OpenAPI tag, create body/response and read response (evaluations spec §2.1). */
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

const projectOf = (params: unknown): string => {
  const { entity, project } = params as ProjectParams;
  return `${entity}/${project}`;
};

/**
 * Bodies are parsed losslessly (rows and attributes are hashed), so an integral `trials` arrives as
 * a number literal object; it becomes a plain number before validation.
 */
function plainTrials(body: unknown): void {
  const record = body as { trials?: unknown } | null;
  if (record && typeof record === 'object' && isLosslessNumber(record.trials) && /^-?\d+$/.test(record.trials.value)) {
    record.trials = Number(record.trials.value);
  }
}

function digestList(query: S.V2DeleteQuery): string[] | null {
  if (query.digests === undefined) return null;
  return Array.isArray(query.digests) ? query.digests : [query.digests];
}

/** Hands a validated create body to the family's service method. */
function createIn(
  v2Objects: V2ObjectService,
  family: V2Family,
  caller: Caller,
  projectId: string,
  body: unknown,
): Promise<unknown> {
  switch (family) {
    case 'ops':
      return v2Objects.opCreate(caller, projectId, body as S.OpCreateBody);
    case 'datasets':
      return v2Objects.datasetCreate(caller, projectId, body as S.DatasetCreateBody);
    case 'scorers':
      return v2Objects.scorerCreate(caller, projectId, body as S.ScorerCreateBody);
    case 'models':
      return v2Objects.modelCreate(caller, projectId, body as S.ModelCreateBody);
    case 'evaluations':
      return v2Objects.evaluationCreate(caller, projectId, body as S.EvaluationCreateBody);
  }
}

/** The v2 object APIs: create, list, read and delete for ops, datasets, scorers, models and evaluations. */
export default async function v2ObjectRoutes(
  app: FastifyInstance,
  { services }: { services: Services },
): Promise<void> {
  const { v2Objects } = services;
  await app.register(async (lossless) => {
    useLosslessJsonBodies(lossless);
    for (const [family, spec] of Object.entries(FAMILY_ROUTES) as Array<[V2Family, (typeof FAMILY_ROUTES)[V2Family]]>) {
      lossless.post(
        `/v2/:entity/:project/${family}`,
        {
          schema: {
            tags: [spec.tag],
            summary: `${spec.tag} Create`,
            params: ProjectParams,
            body: spec.create,
            response: { 200: spec.created },
          },
          preValidation: async (request) => plainTrials(request.body),
        },
        (request) => createIn(v2Objects, family, request.caller, projectOf(request.params), request.body),
      );
    }
  });

  for (const [family, spec] of Object.entries(FAMILY_ROUTES) as Array<[V2Family, (typeof FAMILY_ROUTES)[V2Family]]>) {
    const tags = [spec.tag];
    app.get(
      `/v2/:entity/:project/${family}`,
      { schema: { tags, summary: `${spec.tag} List`, params: ProjectParams, querystring: S.V2ListQuery } },
      (request, reply) =>
        sendJsonl(
          reply,
          v2Objects.list(request.caller, projectOf(request.params), family, request.query as S.V2ListQuery),
        ),
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
        const params = request.params as S.V2VersionParams;
        return v2Objects.read(request.caller, projectOf(params), family, params.object_id, params.digest);
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
      (request) => {
        const params = request.params as { object_id: string };
        return v2Objects.delete(
          request.caller,
          projectOf(request.params),
          family,
          params.object_id,
          digestList(request.query as S.V2DeleteQuery),
        );
      },
    );
  }
}
