import type { Config } from '../config/config.js';
import { RedactionService, redactingWrites } from './redaction-service.js';
import type { TraceStore } from '../store/types.js';
import type { Trainer } from '../training/trainer-port.js';
import { AuthService } from './auth-service.js';
import { CallExportService } from './call-export-service.js';
import { CallQueryService } from './call-query-service.js';
import { CallWriteService } from './call-service.js';
import { CallStatsService } from './call-stats-service.js';
import { CallUsageService } from './call-usage-service.js';
import { CostService } from './cost-service.js';
import { AnnotationQueueService } from './annotation-queue-service.js';
import { InferenceCatalogService } from './inference-catalog.js';
import { KeyAdminService } from './key-admin-service.js';
import { FeedbackService } from './feedback-service.js';
import { FeedbackStatsService } from './feedback-stats-service.js';
import { FileService } from './file-service.js';
import { GraphqlService } from './graphql-service.js';
import { ImageService } from './image-service.js';
import { ObjectLabelService } from './object-label-service.js';
import { ObjectService } from './object-service.js';
import { AgentService } from './agents/agent-service.js';
import { OtelService } from './otel-service.js';
import { StorePriceLookup } from './price-table.js';
import { ProjectAccess } from './project-access.js';
import { AuditLog, MembershipService } from './audit-service.js';
import { ProjectAdminService } from './project-admin-service.js';
import { ProjectTransferService } from './project-transfer-service.js';
import { RefService } from './ref-service.js';
import { ServiceInfo } from './service-info.js';
import { TableService } from './table-service.js';
import { V2ObjectService } from './v2-object-service.js';
import { ThreadService } from './thread-service.js';
import { createEvaluationServices, type EvaluationServices } from './evaluations/index.js';
import { EvaluationJobs, evaluationJobHandlers } from './evaluations/server-eval/evaluation-jobs.js';
import { JobQueue, JobRuntime } from './jobs/index.js';
import { callIndexJobHandlers } from './call-indexes/backfill-job.js';
import { CallTextIndexer } from './call-indexes/text-indexer.js';
import { MONITOR_SCAN, MonitorService } from './monitors/monitor-service.js';
import { createTrainingServices, type TrainingServices } from './training/index.js';
import { WandbCompatService } from './wandb-compat-service.js';
import { LiveTailService } from './live-tail-service.js';
import { createMcpServer, type McpServer } from './mcp/index.js';
import { AlertService } from './alerts/alert-service.js';
import { ProjectListService } from './project-list-service.js';
import { SessionService } from './session-service.js';
import { RetentionScheduler, retentionJobHandlers } from './retention/retention-job.js';
import { RollupBackfillStarter, rollupBackfillHandlers } from './rollup/rollup-backfill.js';
import { RetentionService } from './retention/retention-service.js';
import { backgroundLoop, type BackgroundLoop } from './background-loop.js';

/** Every service, built once per app and handed to the route plugins. */
export interface Services {
  /** PII redaction on write (docs/redaction.md); the services' store is already wrapped by it. */
  redaction: RedactionService;
  auth: AuthService;
  keyAdmin: KeyAdminService;
  /** Who changed keys, roles, prices or retention, or deleted data (docs/roles-and-audit.md). */
  auditLog: AuditLog;
  memberships: MembershipService;
  access: ProjectAccess;
  callWrites: CallWriteService;
  callQueries: CallQueryService;
  /** `/calls/export` (docs/export.md). */
  callExport: CallExportService;
  /** Project row counts and deletion (docs/export.md). */
  projectAdmin: ProjectAdminService;
  /** Whole-project export and import (docs/export.md). */
  projectTransfer: ProjectTransferService;
  /** Retention policies, dry runs and runs (docs/export.md "Retention"). */
  retention: RetentionService;
  /** Queues due retention runs from this node (started and stopped with the job runtime). */
  retentionScheduler: RetentionScheduler;
  /** Queues the call roll-up's backfill when it is incomplete (docs/call-rollups.md). */
  rollupBackfill: RollupBackfillStarter;
  /** Fills the substring index of `$contains` after ingest (docs/query-performance.md "Substrings"). */
  callTextIndexer: CallTextIndexer;
  callStats: CallStatsService;
  callUsage: CallUsageService;
  objects: ObjectService;
  objectLabels: ObjectLabelService;
  files: FileService;
  tables: TableService;
  refs: RefService;
  images: ImageService;
  threads: ThreadService;
  info: ServiceInfo;
  graphql: GraphqlService;
  feedback: FeedbackService;
  feedbackStats: FeedbackStatsService;
  costs: CostService;
  otel: OtelService;
  /** Agents API: agent spans, agents, conversations, search (docs/spec/agents.md). */
  agents: AgentService;
  /** Training API: models, jobs, inference, external workers, and this node's runner and sweeper. */
  training: TrainingServices;
  /** Inference model and hardware catalogues. */
  catalog: InferenceCatalogService;
  annotationQueues: AnnotationQueueService;
  /** v2 ops, datasets, scorers, models and evaluations (docs/spec/evaluations.md §2). */
  v2Objects: V2ObjectService;
  /** Evaluation runs, predictions, scores and eval results (docs/spec/evaluations.md §3–§4). */
  evaluations: EvaluationServices;
  /** `/evaluations/evaluate_model` and `/calls/score`: checks, then jobs on the queue (docs/spec/evaluations.md §5–§6). */
  evaluationJobs: EvaluationJobs;
  /** The background job queue's sweeper and runners on this node (docs/architecture.md). */
  jobs: JobRuntime;
  /** Online monitors: the poll that queues scan jobs, and the scan job (docs/monitors.md). */
  monitors: MonitorService;
  /** Web UI: browser sessions, the project list and the calls live tail. */
  sessions: SessionService;
  projectList: ProjectListService;
  liveTail: LiveTailService;
  /** What this node runs in the background, in start order (background-loop.ts). */
  loops: readonly BackgroundLoop[];
  /** The Model Context Protocol's tools at `/mcp` (docs/mcp.md). */
  mcp: McpServer;
  /** Alerts on AlertSpec objects: evaluation, history and webhook notifications (docs/alerts.md). */
  alerts: AlertService;
}

export function createServices(rawStore: TraceStore, config: Config, trainer: Trainer | null = null): Services {
  // every write of calls and feedback below goes through the redaction (docs/redaction.md)
  const redaction = new RedactionService(config.redaction);
  const store = redactingWrites(rawStore, redaction);
  const access = new ProjectAccess(store);
  const auditLog = new AuditLog(store, access);
  const prices = new StorePriceLookup(store.costs);
  const feedback = new FeedbackService(store, access, auditLog);
  const objects = new ObjectService(store, access);
  const files = new FileService(store, access);
  const tables = new TableService(store, access);
  const v2Objects = new V2ObjectService(store, access, objects, files, tables);
  const auth = new AuthService(store);
  const memberships = new MembershipService(store, auth, access, auditLog);
  const training = createTrainingServices(store, access, config, trainer);
  const evaluations = createEvaluationServices(
    store,
    access,
    v2Objects,
    feedback,
    prices,
    config.providers,
    training.inference,
  );
  const retentionScheduler = new RetentionScheduler(store.retention, config.retention, config.jobs.maxAttempts);
  const rollupBackfill = new RollupBackfillStarter(store, config.jobs.maxAttempts);
  // the monitors queue scan jobs and handle them: the queue comes first, the runtime with every handler after
  const jobQueue = new JobQueue(store.jobs, config.jobs);
  const monitors = new MonitorService(store, evaluations.server, jobQueue, config.monitors);
  const jobs: JobRuntime = new JobRuntime(jobQueue, store.jobs, {
    ...evaluationJobHandlers(evaluations.server),
    ...retentionJobHandlers(store.retention, () => retentionScheduler.log),
    ...rollupBackfillHandlers(store, () => rollupBackfill.log),
    ...callIndexJobHandlers(store.callIndexes, () => jobs.log),
    [MONITOR_SCAN]: monitors.handler(),
  });
  objects.onPublished((caller, projectId, objectId, baseClass, val) =>
    monitors.published(caller, projectId, objectId, baseClass, val),
  );
  const callQueries = new CallQueryService(store, access, prices, feedback);
  const threads = new ThreadService(store, access);
  const alerts = new AlertService(store, access, callQueries, config.alerts);
  objects.onPublished((caller, projectId, objectId, baseClass, val) =>
    alerts.published(caller, projectId, objectId, baseClass, val),
  );
  const callTextIndexer = new CallTextIndexer(store);
  const loops = [
    // training: the sweeper always, the built-in runner when a trainer is set
    backgroundLoop('training', training.runtime),
    // evaluation, scoring, retention, backfill and monitor-scan jobs: the sweeper and the runners
    backgroundLoop('jobs', jobs),
    // online monitors: the poll that queues scan jobs (docs/monitors.md)
    backgroundLoop('monitors', monitors),
    // alerts: evaluates due AlertSpecs and sends due notifications, under leases (docs/alerts.md)
    backgroundLoop('alerts', alerts),
    // queues due retention runs (docs/export.md "Retention")
    backgroundLoop('retention', retentionScheduler),
    // queues the call roll-up's backfill when a migrated store lacks it (docs/call-rollups.md)
    backgroundLoop('rollup-backfill', rollupBackfill),
    // the call indexes filled after ingest (docs/query-performance.md "Substrings")
    backgroundLoop('call-indexer', callTextIndexer),
  ];
  return {
    loops,
    auth,
    redaction,
    keyAdmin: new KeyAdminService(store, auth, auditLog, memberships),
    auditLog,
    memberships,
    sessions: new SessionService(store, auth, config.sessionTtlSeconds),
    projectList: new ProjectListService(store),
    liveTail: new LiveTailService(store, access),
    access,
    callWrites: new CallWriteService(store, access, auditLog),
    callQueries,
    callExport: new CallExportService(callQueries),
    projectAdmin: new ProjectAdminService(store, access, auditLog),
    projectTransfer: new ProjectTransferService(store, access, auditLog),
    retention: new RetentionService(store, access, jobs, auditLog),
    retentionScheduler,
    rollupBackfill,
    callTextIndexer,
    callStats: new CallStatsService(store, access, prices),
    callUsage: new CallUsageService(store, access, prices),
    objects,
    objectLabels: new ObjectLabelService(store, access),
    files,
    tables,
    refs: new RefService(store, access),
    images: new ImageService(
      { apiKey: config.openaiApiKey, baseUrl: config.openaiBaseUrl },
      access,
      new FileService(store, access),
      new CallWriteService(store, access, auditLog),
    ),
    threads,
    info: new ServiceInfo(config, store),
    graphql: new GraphqlService(new WandbCompatService(store, access, config)),
    feedback,
    feedbackStats: new FeedbackStatsService(store, access),
    costs: new CostService(store, access, auditLog),
    catalog: new InferenceCatalogService(config.inferenceCatalog),
    annotationQueues: new AnnotationQueueService(store, access),
    v2Objects,
    evaluations,
    evaluationJobs: new EvaluationJobs(evaluations.server, jobs),
    jobs,
    monitors,
    otel: new OtelService(store, access, objects),
    agents: new AgentService(store, access, prices),
    training,
    alerts,
    mcp: createMcpServer({
      calls: callQueries,
      threads,
      objects,
      tables,
      feedback,
      evalResults: evaluations.results,
    }),
  };
}
