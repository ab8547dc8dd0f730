import { CallsExportReq } from '../schemas/export.js';
import type { Services } from '../services/index.js';
import { sendLines } from './jsonl.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** `POST /calls/export` (docs/export.md): a download, streamed with backpressure. */
export default async function callsExportRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  app.post(
    '/calls/export',
    {
      schema: {
        tags: ['Calls'],
        summary: 'Export calls with feedback and costs as JSON Lines or CSV',
        body: CallsExportReq,
        produces: ['application/jsonl', 'text/csv'],
      },
    },
    async (request, reply) => {
      const out = await services.callExport.callsExport(request.caller, request.body);
      return sendLines(reply, out.lines, out.contentType, {
        'content-disposition': `attachment; filename="${out.filename}"`,
      });
    },
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const callsExportArea = routeArea('calls-export', callsExportRoutes, {
  'POST /calls/export': 'read',
});
