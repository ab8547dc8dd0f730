/**
 * What background work logs to (pino's call shape, so a Fastify logger fits): the services' loops
 * and jobs take it when they start, since they run outside any request.
 */
export interface BackgroundLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}
