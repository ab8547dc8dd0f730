/**
 * The Python client (weave 0.54) talks to `<WANDB_BASE_URL>/traces` when `WF_TRACE_SERVER_URL` is
 * unset, so the whole API also answers under `/traces`. The prefix is stripped before routing
 * (Fastify's `rewriteUrl`): the same handlers and schemas serve both, and the OpenAPI document
 * lists each operation once, at its root path. `request.originalUrl` keeps what the client sent.
 */
export const TRACES_PREFIX = '/traces';

/** `/traces/calls/stream_query?x` → `/calls/stream_query?x`; any other URL is returned unchanged. */
export function stripTracesPrefix(url: string): string {
  if (!url.startsWith(TRACES_PREFIX)) return url;
  const rest = url.slice(TRACES_PREFIX.length);
  if (rest === '') return '/';
  if (rest.startsWith('/')) return rest;
  if (rest.startsWith('?')) return `/${rest}`;
  return url;
}
