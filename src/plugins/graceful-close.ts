import type { FastifyInstance } from 'fastify';

/**
 * Graceful shutdown, HTTP side: once `app.close()` has begun, every response carries
 * `Connection: close`, so a keep-alive connection whose request was in flight at SIGTERM is
 * ended by Node right after its answer instead of lingering until the client drops it (which
 * would hold the process up). Requests that arrive while closing get Fastify's 503.
 * Must be registered before the route plugins so their routes inherit the hook.
 */
export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
