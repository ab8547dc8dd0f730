import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { AppError, InvalidRequestError, RequestTooLargeError, RequestValidationError } from '../errors/app-error.js';
import * as S from '../schemas/files.js';
import type { UploadPart } from '../services/file-service.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Files'];

/** Parser failures of a malformed form (busboy errors carry no status) become 400s instead of 500s. */
function asClientError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  return new InvalidRequestError(`Malformed multipart body: ${error instanceof Error ? error.message : String(error)}`);
}

/** The file's bytes; 413 as soon as busboy truncates it at the configured limit. */
async function* fileBytes(file: MultipartFile, limit: number): AsyncGenerator<Buffer> {
  const tooLarge = () => new RequestTooLargeError(`Request too large: the file exceeds the limit of ${limit} bytes`);
  try {
    for await (const chunk of file.file) {
      if (file.file.truncated) throw tooLarge();
      yield chunk as Buffer;
    }
  } catch (error) {
    throw asClientError(error);
  }
  if (file.file.truncated) throw tooLarge();
}

/** The form's parts for the service, which stays free of Fastify types. */
async function* uploadParts(request: FastifyRequest, limit: number): AsyncGenerator<UploadPart> {
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') yield { kind: 'field', name: part.fieldname, value: String(part.value) };
      else yield { kind: 'file', name: part.fieldname, filename: part.filename || null, bytes: fileBytes(part, limit) };
    }
  } catch (error) {
    throw asClientError(error);
  }
}

/** Files (docs/spec/objects.md §6.1–6.3); each route is also served at the path newer clients use. */
export default async function filesRoutes(
  app: RouteApp,
  { services, fileLimitBytes }: { services: Services; fileLimitBytes: number },
): Promise<void> {
  const { files } = services;
  // scoped to this plugin: other routes never see multipart bodies
  await app.register(multipart, {
    limits: { fileSize: fileLimitBytes, fieldSize: 1024 * 1024, fields: 100, parts: 200 },
  });

  for (const url of ['/file/create', '/files/create']) {
    app.post(
      url,
      {
        schema: {
          tags,
          summary: 'File Create',
          body: { content: { 'multipart/form-data': { schema: S.FileCreateForm } } },
          response: { 200: S.FileCreateRes },
          hide: url !== '/file/create',
        },
      },
      async (request) => {
        if (!request.isMultipart()) {
          throw new RequestValidationError(
            ['project_id', 'file'].map((name) => ({ loc: ['body', name], msg: 'Field required', type: 'missing' })),
          );
        }
        return files.fileCreate(request.caller, uploadParts(request, fileLimitBytes));
      },
    );
  }

  for (const url of ['/file/content', '/files/content']) {
    app.post(
      url,
      {
        schema: {
          tags,
          summary: 'File Content',
          body: S.FileContentReadReq,
          produces: ['application/octet-stream'],
          hide: url !== '/file/content',
        },
      },
      async (request, reply) => {
        const { size, chunks } = await files.fileContent(request.caller, request.body);
        return reply.type('application/octet-stream').header('content-length', size).send(Readable.from(chunks));
      },
    );
  }

  app.post(
    '/files/query_stats',
    { schema: { tags, summary: 'Files Stats', body: S.FilesStatsReq, response: { 200: S.FilesStatsRes } } },
    (request) => files.filesStats(request.caller, request.body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const filesArea = routeArea(
  'files',
  filesRoutes,
  {
    'POST /file/create': 'write',
    'POST /files/create': 'write',
    'POST /file/content': 'read',
    'POST /files/content': 'read',
    'POST /files/query_stats': 'read',
  },
  ({ services, config }) => ({ services, fileLimitBytes: config.fileLimitBytes }),
);
