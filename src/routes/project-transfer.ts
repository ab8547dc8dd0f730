import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Type } from '@sinclair/typebox';
import { InvalidRequestError } from '../errors/app-error.js';
import * as S from '../schemas/projects.js';
import type { Services } from '../services/index.js';
import { sendLines } from './jsonl.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Projects'];
const DUMP_TYPES = ['application/jsonl', 'application/x-ndjson'];
const DumpBody = Type.Unknown({
  description: 'A project dump: a header line, one {"table","row"} line per row, a trailer line (docs/export.md)',
});

/**
 * Whole-project export and import (docs/export.md "Whole-project export and import"): the dump is
 * streamed both ways, never held whole. The import's body is read line by line as the store takes
 * the rows, so it has no body limit of its own.
 */
export default async function projectTransferRoutes(
  app: RouteApp,
  { services }: { services: Services },
): Promise<void> {
  const { projectTransfer } = services;
  // the raw request stream, for this plugin's routes only
  app.addContentTypeParser(DUMP_TYPES, (_request, payload, done) => done(null, payload));
  app.get(
    '/projects/:entity/:project/export',
    {
      schema: {
        tags,
        summary: 'Every row of the project, as JSON Lines (a dump for POST …/import on any Heddle)',
        params: S.ProjectPathParams,
        produces: ['application/jsonl'],
      },
    },
    async (request, reply) => {
      const { entity, project } = request.params;
      const lines = await projectTransfer.exportLines(request.caller, entity, project);
      return sendLines(reply, lines, 'application/jsonl', {
        'content-disposition': `attachment; filename="${encodeURIComponent(`${entity}-${project}`)}.heddle.jsonl"`,
      });
    },
  );
  app.post(
    '/projects/:entity/:project/import',
    {
      schema: {
        tags,
        summary: 'Import a project dump (GET …/export of any Heddle) into this empty project',
        params: S.ProjectPathParams,
        // any body: the lines are checked one by one as they are read (the service's reasons name the line)
        body: {
          content: Object.fromEntries(DUMP_TYPES.map((type) => [type, { schema: DumpBody }])),
        },
        response: { 200: S.ProjectImportRes },
      },
    },
    async (request) => {
      const { entity, project } = request.params;
      if (!(request.body instanceof Readable))
        throw new InvalidRequestError(`An import takes the dump as ${DUMP_TYPES.join(' or ')}`);
      return projectTransfer.importLines(request.caller, entity, project, readLines(request.body));
    },
  );
}

/**
 * The stream's lines (without their "\n" or "\r\n"), pulled as they are consumed: nothing is read
 * ahead of the importer, and nothing is lost while it waits (readline's iterator drops lines
 * emitted before iteration starts).
 */
async function* readLines(stream: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of stream) {
    pending += decoder.write(chunk as Buffer);
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
      yield pending.slice(start, end).replace(/\r$/, '');
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== '') yield pending;
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const projectTransferArea = routeArea('project-transfer', projectTransferRoutes, {
  // whole-project transfer (docs/export.md); an import writes digests as given, so it is admin-only
  'GET /projects/:entity/:project/export': 'read',
  'POST /projects/:entity/:project/import': 'admin',
});
