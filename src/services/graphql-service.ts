import {
  buildSchema,
  execute,
  GraphQLError,
  GraphQLObjectType,
  parse,
  validate,
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { WANDB_SDL, type GraphqlRequest } from '../schemas/graphql.js';
import type { Caller } from './auth-service.js';
import {
  WandbCompatError,
  type EntityView,
  type ProjectView,
  type WandbCompatService,
} from './wandb-compat-service.js';

/** What every resolver sees. */
export interface GraphqlContext {
  caller: Caller;
  /** `http://host:port` the request was addressed to (serverInfo fallback). */
  requestOrigin: string;
}

/** A GraphQL-over-HTTP answer: status and JSON body, plus unexpected errors for the route to log. */
export interface GraphqlResponse {
  status: number;
  body: { data?: unknown; errors?: unknown[] };
  internalErrors: unknown[];
}

type Resolver = GraphQLFieldResolver<unknown, GraphqlContext, Record<string, unknown>>;
type ResolverMap = Record<string, Record<string, Resolver>>;

/** Opaque node ids in W&B's style (base64 of `Type:key`). */
const nodeId = (type: string, key: string): string => Buffer.from(`${type}:${key}`, 'utf8').toString('base64');

/** Documents longer than this are refused before parsing (the clients send a few hundred bytes). */
const MAX_QUERY_CHARS = 100_000;

/**
 * Executes GraphQL documents against WANDB_SDL with resolvers over WandbCompatService. Parsing,
 * validation and execution are graphql-js's; errors come back in GraphQL form (`errors[]` with
 * `extensions.code`) with status 200, as GraphQL-over-HTTP prescribes for JSON responses.
 */
export class GraphqlService {
  readonly schema: GraphQLSchema;

  constructor(private readonly compat: WandbCompatService) {
    this.schema = buildSchema(WANDB_SDL);
    attachResolvers(this.schema, this.#resolvers());
  }

  async execute(body: unknown, context: GraphqlContext): Promise<GraphqlResponse> {
    const request = readRequest(body);
    if (typeof request === 'string')
      return {
        status: 400,
        body: { errors: [{ message: request, extensions: { code: 'BAD_REQUEST' } }] },
        internalErrors: [],
      };
    let document: DocumentNode;
    try {
      document = parse(request.query);
    } catch (error) {
      return {
        status: 200,
        body: { errors: [withCode(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')] },
        internalErrors: [],
      };
    }
    const invalid = validate(this.schema, document);
    if (invalid.length > 0) {
      return {
        status: 200,
        body: { errors: invalid.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')) },
        internalErrors: [],
      };
    }
    const result = await execute({
      schema: this.schema,
      document,
      variableValues: request.variables ?? undefined,
      operationName: request.operationName ?? undefined,
      contextValue: context,
    });
    const internalErrors: unknown[] = [];
    const errors = result.errors?.map((error) => {
      const original = error.originalError;
      if (original instanceof WandbCompatError) return withCode(error, original.code);
      if (original === undefined || original instanceof GraphQLError) return withCode(error, 'BAD_USER_INPUT');
      internalErrors.push(original);
      return { message: 'Internal server error', path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    });
    return { status: 200, body: errors ? { errors, data: result.data } : { data: result.data }, internalErrors };
  }

  #resolvers(): ResolverMap {
    const compat = this.compat;
    const entityOf = async (caller: Caller, name: string): Promise<EntityView> =>
      (await compat.entity(caller, name)) ?? { name, readOnly: true, isTeam: true };
    return {
      Query: {
        viewer: (_src, _args, { caller }) => compat.viewer(caller),
        entity: (_src, args, { caller }) => compat.entity(caller, args.name as string),
        project: (_src, args, { caller }) =>
          compat.project(
            caller,
            (args.entityName as string | null | undefined) ?? caller.defaultEntity,
            args.name as string,
          ),
        serverInfo: (_src, _args, { requestOrigin }) => compat.serverInfo(requestOrigin),
        artifact: () => null,
      },
      Mutation: {
        upsertModel: async (_src, args, { caller }) => {
          const input = args.input as { name?: string | null; entityName?: string | null };
          const { project, inserted } = await compat.upsertProject(caller, input);
          return { model: project, project, inserted };
        },
      },
      User: {
        name: (src) => (src as { username: string }).username,
        defaultEntity: (src, _args, { caller }) =>
          compat.entity(caller, (src as { defaultEntity: string }).defaultEntity),
      },
      Entity: {
        id: (src) => nodeId('Entity', (src as EntityView).name),
        project: (src, args, { caller }) => compat.project(caller, (src as EntityView).name, args.name as string),
      },
      Project: {
        id: (src) => nodeId('Project', (src as ProjectView).projectId),
        internalId: (src) => Buffer.from((src as ProjectView).projectId, 'utf8').toString('base64'),
        entity: (src, _args, { caller }) => entityOf(caller, (src as ProjectView).entityName),
        description: () => null,
        artifact: () => null,
      },
    };
  }
}

/** Sets `resolve` on the schema's fields; a name that is not in the schema is a programming error. */
function attachResolvers(schema: GraphQLSchema, resolvers: ResolverMap): void {
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`GraphQL schema has no object type ${typeName}`);
    const typeFields = type.getFields();
    for (const [fieldName, resolve] of Object.entries(fields)) {
      const field = typeFields[fieldName];
      if (!field) throw new Error(`GraphQL type ${typeName} has no field ${fieldName}`);
      field.resolve = resolve;
    }
  }
}

/** The request, or why it is not a GraphQL-over-HTTP request (400). */
function readRequest(body: unknown): GraphqlRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'The body must be a JSON object with a "query" string';
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') return 'The body must contain a non-empty "query" string';
  if (query.length > MAX_QUERY_CHARS) return `The query is longer than ${MAX_QUERY_CHARS} characters`;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return '"variables" must be an object';
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return '"operationName" must be a string';
  return {
    query,
    variables: variables as Record<string, unknown> | null | undefined,
    operationName: operationName as string | null | undefined,
  };
}

function withCode(error: GraphQLError, code: string): Record<string, unknown> {
  return { ...error.toJSON(), extensions: { ...error.extensions, code } };
}
