import type { RouteArea } from './route-area.js';
import { serviceArea } from './service.js';
import { callsArea } from './calls.js';
import { callsExportArea } from './calls-export.js';
import { projectArea } from './projects.js';
import { retentionArea } from './retention.js';
import { redactionArea } from './redaction.js';
import { projectTransferArea } from './project-transfer.js';
import { callsV2Area } from './calls-v2.js';
import { callsAnalyticsArea } from './calls-analytics.js';
import { objectsArea } from './objects.js';
import { tablesArea } from './tables.js';
import { imagesArea } from './images.js';
import { filesArea } from './files.js';
import { graphqlArea } from './graphql.js';
import { feedbackArea } from './feedback.js';
import { otelArea } from './otel.js';
import { trainingArea } from './training.js';
import { trainingJobArea } from './training-jobs.js';
import { trainingWorkerArea } from './training-workers.js';
import { inferenceArea } from './inference.js';
import { inferenceCatalogArea } from './inference-catalogs.js';
import { annotationQueueArea } from './annotation-queues.js';
import { v2ObjectArea } from './v2-objects.js';
import { evaluationRunArea } from './evaluation-runs.js';
import { keyArea } from './keys.js';
import { auditArea } from './audit.js';
import { uiSessionArea } from './ui-session.js';
import { liveTailArea } from './live-tail.js';
import { evaluationServerArea } from './evaluations-server.js';
import { completionsArea } from './completions.js';
import { mcpArea } from './mcp.js';
import { agentsArea } from './agents.js';
import { alertsArea } from './alerts.js';

/**
 * Every endpoint group, in registration order: the app registers each and the role policy reads
 * their access tables (route-area.ts). A new group adds its file and one line here.
 */
export const ROUTE_AREAS: readonly RouteArea[] = [
  serviceArea,
  callsArea,
  callsExportArea,
  projectArea,
  retentionArea,
  redactionArea,
  projectTransferArea,
  callsV2Area,
  callsAnalyticsArea,
  objectsArea,
  tablesArea,
  imagesArea,
  filesArea,
  graphqlArea,
  feedbackArea,
  otelArea,
  trainingArea,
  trainingJobArea,
  trainingWorkerArea,
  inferenceArea,
  inferenceCatalogArea,
  annotationQueueArea,
  v2ObjectArea,
  evaluationRunArea,
  keyArea,
  auditArea,
  uiSessionArea,
  liveTailArea,
  evaluationServerArea,
  completionsArea,
  agentsArea,
  mcpArea,
  alertsArea,
];
