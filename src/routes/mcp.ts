import type { FastifyReply } from 'fastify';
import { RPC, rpcError, type JsonRpcResponse } from '../services/mcp/json-rpc.js';
import { MCP_PROTOCOL_VERSIONS } from '../services/mcp/index.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** Messages one POST may batch (protocol revision 2025-03-26 allows batches; later ones send one). */
const MAX_BATCH = 32;

/** Whether an `Origin` header names the host (and port) the request was sent to. */
function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

function rpcReply(reply: FastifyReply, status: number, body: JsonRpcResponse | JsonRpcResponse[]): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify(body));
}

/**
 * `/mcp`: the Model Context Protocol over its streamable HTTP transport, stateless and answering
 * in JSON (docs/mcp.md). GET and DELETE get the app's 405: no server-to-client stream, no sessions. Authenticated like every route (Basic `api:<key>` or Bearer); the route
 * is a read, and each write tool's service checks the caller may write to the project, as the
 * REST route would. Outside the OpenAPI document: it is MCP's protocol, not Weave's.
 */
export default async function mcpRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { mcp } = services;

  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    // the transport's DNS-rebinding guard: a browser page of another origin is refused
    const origin = request.headers.origin;
    if (origin !== undefined && !sameHost(origin, request.host))
      return rpcReply(reply, 403, rpcError(null, RPC.invalidRequest, `Origin ${origin} is not this server's`));
    // the transport: a request naming a revision this server does not speak is refused with 400
    const version = request.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version))
      return rpcReply(
        reply,
        400,
        rpcError(
          null,
          RPC.invalidRequest,
          `Unsupported MCP-Protocol-Version ${version}; this server speaks ${MCP_PROTOCOL_VERSIONS.join(', ')}`,
        ),
      );
    const log = (error: unknown, tool: string) => request.log.error({ err: error, tool }, 'MCP tool failed');
    const body = request.body;
    if (Array.isArray(body)) {
      if (body.length === 0 || body.length > MAX_BATCH)
        return rpcReply(reply, 400, rpcError(null, RPC.invalidRequest, `A batch holds 1 to ${MAX_BATCH} messages`));
      const answers: JsonRpcResponse[] = [];
      for (const message of body) {
        const answer = await mcp.handle(request.caller, message, log);
        if (answer !== null) answers.push(answer);
      }
      return answers.length === 0 ? reply.code(202).send() : rpcReply(reply, 200, answers);
    }
    const answer = await mcp.handle(request.caller, body, log);
    if (answer === null) return reply.code(202).send();
    // a message that is not JSON-RPC is the transport's 400; a JSON-RPC error to a request is 200
    const malformed = 'error' in answer && answer.error.code === RPC.invalidRequest;
    return rpcReply(reply, malformed ? 400 : 200, answer);
  });
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const mcpArea = routeArea('mcp', mcpRoutes, {
  // the Model Context Protocol (docs/mcp.md): its write tools check the role in their services
  'POST /mcp': 'read',
});
