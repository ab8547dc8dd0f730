import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/config.js';
import { registerAuth } from './plugins/auth.js';
import { connectionOptions, registerConnectionLimits } from './plugins/connection-limits.js';
import { registerErrorHandling } from './plugins/error-handler.js';
import { registerGracefulClose } from './plugins/graceful-close.js';
import { registerOpenApi } from './plugins/openapi.js';
import { installEarlyShed } from './plugins/early-shed.js';
import { registerProbePort } from './plugins/probe-port.js';
import { registerBackPressure, registerRateLimit } from './plugins/overload.js';
import { countingCallWrites, registerRequestLog, RequestActivity } from './plugins/request-log.js';
import { stripTracesPrefix } from './plugins/traces-prefix.js';
import { registerWebApp, WebApp } from './plugins/web-app.js';
import { ROUTE_AREAS } from './routes/index.js';
import { accessTable } from './routes/route-area.js';
import { createAjv } from './schemas/ajv.js';
import { CallSchema } from './schemas/calls.js';
import { Operand } from './schemas/query.js';
import { createServices, type Services } from './services/index.js';
import type { TraceStore } from './store/types.js';
import { BuiltinTrainer } from './training/builtin-trainer.js';
import type { Trainer } from './training/trainer-port.js';
import { HEDDLE_VERSION } from './version.js';

export interface BuildAppOptions {
  config: Config;
  store: TraceStore;
  logger?: FastifyServerOptions['logger'];
  /**
   * The trainer behind training jobs and `/v1/chat/completions`; the app closes it. Default: the
   * built-in trainer (its threads start on first use). Null: none (jobs wait for external workers).
   */
  trainer?: Trainer | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** Schemas that routes reference by `$id`. */
const SHARED_SCHEMAS = [Operand, CallSchema];

/**
 * The composition root: services over the given store, plugins, then routes. It never listens;
 * `main.ts` does, and tests use `inject`.
 */
export async function buildApp({ config, store, logger = false, trainer }: BuildAppOptions): Promise<FastifyInstance> {
  const connections = connectionOptions(config);
  const app = Fastify({
    logger,
    // plugins/request-log.ts logs a request at most once (failed or slow at info; each at debug)
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    ...connections,
    routerOptions: { ...connections.routerOptions, ignoreTrailingSlash: true },
    forceCloseConnections: 'idle',
    // `/traces/...` answers like `/...` (plugins/traces-prefix.ts).
    rewriteUrl: (req) => stripTracesPrefix(req.url ?? '/'),
    // JSON.parse makes `__proto__` an ordinary own key; refusing it would reject legitimate
    // user data in free-form inputs, and nothing here merges bodies with Object.assign.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
  });
  const ajv = createAjv(SHARED_SCHEMAS);
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  const activity = new RequestActivity();
  const counted = countingCallWrites(store, (n) => (activity.callsStored += n));
  const services = createServices(counted, config, trainer === undefined ? new BuiltinTrainer() : trainer);
  app.decorate('services', services);

  await registerOpenApi(app, { version: HEDDLE_VERSION });
  registerRequestLog(app, { slowMs: config.logSlowMs, summarySeconds: config.logSummarySeconds }, activity);
  const webApp = new WebApp(config.webDir);
  registerErrorHandling(app, {
    bodyLimitBytes: config.bodyLimitBytes,
    htmlFallback: (request, reply) => webApp.fallback(request, reply),
    routeAccess: accessTable(ROUTE_AREAS),
  });
  registerGracefulClose(app);
  registerConnectionLimits(app, config, (requestLine) => {
    activity.refused += 1;
    app.log.debug({ request_line: requestLine, status: 503 }, 'connection refused at the cap');
  });
  // before authentication, so a refused request costs no key lookup
  const inFlight = registerBackPressure(app, config.overload, () => store.load());
  installEarlyShed(app.server, {
    maxInFlight: config.overload.maxInFlight,
    inFlight: () => inFlight.count,
    onRefused: (method, url) => {
      activity.refused += 1;
      app.log.debug({ method, url, status: 503 }, 'request refused for load');
    },
  });
  registerAuth(app, services.auth, services.sessions);
  if (config.rateLimit) registerRateLimit(app, config.rateLimit);

  for (const area of ROUTE_AREAS) await area.register(app, { services, config });
  registerWebApp(app, webApp);
  if (config.probePort !== null)
    registerProbePort(app, {
      host: config.host,
      port: config.probePort,
      version: HEDDLE_VERSION,
      stallMs: config.probeStallMs,
      health: () => services.info.health(),
    });
  // background work of this node (services/background-loop.ts), stopped before the store closes
  app.addHook('onReady', async () => {
    for (const loop of services.loops) await loop.start(app.log);
  });
  app.addHook('onClose', async () => {
    for (const loop of services.loops) await loop.stop();
  });

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  return app;
}
