import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/config.js';
import { registerAuth } from './plugins/auth.js';
import { connectionOptions, registerConnectionLimits } from './plugins/connection-limits.js';
import { registerErrorHandling } from './plugins/error-handler.js';
import { registerGracefulClose } from './plugins/graceful-close.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerBackPressure, registerRateLimit } from './plugins/overload.js';
import { countingCallWrites, registerRequestLog, RequestActivity } from './plugins/request-log.js';
import { stripTracesPrefix } from './plugins/traces-prefix.js';
import { registerWebApp, WebApp } from './plugins/web-app.js';
import callsRoutes from './routes/calls.js';
import callsExportRoutes from './routes/calls-export.js';
import projectRoutes from './routes/projects.js';
import retentionRoutes from './routes/retention.js';
import projectTransferRoutes from './routes/project-transfer.js';
import callsV2Routes from './routes/calls-v2.js';
import callsAnalyticsRoutes from './routes/calls-analytics.js';
import feedbackRoutes from './routes/feedback.js';
import filesRoutes from './routes/files.js';
import graphqlRoutes from './routes/graphql.js';
import imagesRoutes from './routes/images.js';
import objectsRoutes from './routes/objects.js';
import otelRoutes from './routes/otel.js';
import serviceRoutes from './routes/service.js';
import tablesRoutes from './routes/tables.js';
import trainingRoutes from './routes/training.js';
import trainingJobRoutes from './routes/training-jobs.js';
import trainingWorkerRoutes from './routes/training-workers.js';
import inferenceRoutes from './routes/inference.js';
import inferenceCatalogRoutes from './routes/inference-catalogs.js';
import annotationQueueRoutes from './routes/annotation-queues.js';
import v2ObjectRoutes from './routes/v2-objects.js';
import evaluationRunRoutes from './routes/evaluation-runs.js';
import keyRoutes from './routes/keys.js';
import auditRoutes from './routes/audit.js';
import liveTailRoutes from './routes/live-tail.js';
import uiSessionRoutes from './routes/ui-session.js';
import evaluationServerRoutes from './routes/evaluations-server.js';
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
  });
  registerGracefulClose(app);
  registerConnectionLimits(app, config);
  // before authentication, so a refused request costs no key lookup
  registerBackPressure(app, config.overload, () => store.load());
  registerAuth(app, services.auth, services.sessions);
  if (config.rateLimit) registerRateLimit(app, config.rateLimit);

  await app.register(serviceRoutes, { services });
  await app.register(callsRoutes, { services });
  await app.register(callsExportRoutes, { services });
  await app.register(projectRoutes, { services });
  await app.register(retentionRoutes, { services });
  await app.register(projectTransferRoutes, { services });
  await app.register(callsV2Routes, { services });
  await app.register(callsAnalyticsRoutes, { services });
  await app.register(objectsRoutes, { services });
  await app.register(tablesRoutes, { services });
  await app.register(imagesRoutes, { services });
  await app.register(filesRoutes, { services, fileLimitBytes: config.fileLimitBytes });
  await app.register(graphqlRoutes, { services });
  await app.register(feedbackRoutes, { services });
  await app.register(otelRoutes, { services });
  await app.register(trainingRoutes, { services });
  await app.register(trainingJobRoutes, { services });
  await app.register(trainingWorkerRoutes, { services });
  await app.register(inferenceRoutes, { services });
  await app.register(inferenceCatalogRoutes, { services });
  await app.register(annotationQueueRoutes, { services });
  await app.register(v2ObjectRoutes, { services });
  await app.register(evaluationRunRoutes, { services });
  await app.register(keyRoutes, { services });
  await app.register(auditRoutes, { services });
  await app.register(uiSessionRoutes, { services });
  await app.register(liveTailRoutes, { services });
  await app.register(evaluationServerRoutes, { services });
  registerWebApp(app, webApp);
  // Training runs in the background of every node: the sweeper always, the built-in runner when a trainer is set.
  app.addHook('onReady', async () => services.training.runtime.start(app.log));
  app.addHook('onClose', async () => services.training.runtime.stop());
  // Background jobs (evaluations, scoring) likewise: the sweeper always, `HEDDLE_JOBS_CONCURRENCY` runners.
  app.addHook('onReady', async () => services.jobs.start(app.log));
  app.addHook('onClose', async () => services.jobs.stop());
  // online monitors: the poll that queues scan jobs (docs/monitors.md); stopped before the store closes
  app.addHook('onReady', async () => services.monitors.start(app.log));
  app.addHook('onClose', async () => services.monitors.stop());
  // Retention runs (docs/export.md "Retention") are queued by every node's scheduler, run by the job runners.
  app.addHook('onReady', async () => services.retentionScheduler.start(app.log));
  app.addHook('onClose', async () => services.retentionScheduler.stop());
  // The call roll-up's backfill (docs/call-rollups.md), queued when a migrated store has calls it lacks.
  app.addHook('onReady', async () => services.rollupBackfill.start(app.log));
  // The substring index of $contains, filled after ingest (docs/query-performance.md "Substrings").
  app.addHook('onReady', async () => services.callTextIndexer.start(app.log));
  app.addHook('onClose', async () => services.callTextIndexer.stop());

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  return app;
}
