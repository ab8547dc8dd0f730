import { migration as authAndCalls } from './001-auth-and-calls.js';
import { migration as objectsAndFiles } from './002-objects-and-files.js';
import { migration as feedbackAndPrices } from './003-feedback-and-prices.js';
import { migration as tableStore } from './004-table-store.js';
import { migration as training } from './005-training.js';
import { migration as annotationQueues } from './006-annotation-queues.js';
import { migration as membershipRole } from './007-membership-role.js';
import { migration as uiSessions } from './008-ui-sessions-and-change-seq.js';
import { migration as backgroundJobs } from './009-background-jobs.js';
import { migration as monitors } from './010-monitors.js';
import { migration as viewerRoleAndAudit } from './011-viewer-role-and-audit.js';
import { migration as retentionPolicies } from './012-retention-policies.js';
import { migration as objectWriteLocks } from './013-object-write-locks.js';
import { migration as workerInference } from './014-worker-inference.js';
import { migration as callRollups } from './015-call-rollups.js';
import { migration as callCountsAndLatency } from './016-call-counts-and-latency.js';
import { migration as callTextIndex } from './017-call-text-index.js';
import { migration as callValuesByIndexer } from './018-call-values-by-indexer.js';
import { migration as callLatencyByIndexer } from './019-call-latency-by-indexer.js';
import { migration as callStatusByIndexer } from './020-call-status-by-indexer.js';
import { migration as callDisplayByIndexer } from './021-call-display-by-indexer.js';
import { migration as callTokensByIndexer } from './022-call-tokens-by-indexer.js';
import { migration as callRollupPending } from './023-call-rollup-pending.js';
import { migration as callCostByIndexer } from './024-call-cost-by-indexer.js';
import { migration as callTokenRoots } from './025-call-token-roots.js';
import { migration as callTraceNamesByIndexer } from './026-call-trace-names-by-indexer.js';
import { migration as callEntryFillsOf019To022 } from './027-call-entry-fills-of-019-022.js';
import { migration as callLatencyRoots } from './028-call-latency-roots.js';
import { migration as callOpNames } from './029-call-op-names.js';
import { migration as callStatusRoots } from './030-call-status-roots.js';
import { migration as callCountsByWriters } from './031-call-counts-by-writers.js';
import { migration as callTextTrigrams } from './032-call-text-trigrams.js';
import { migration as agentSpans } from './033-agent-spans.js';
import { migration as alerts } from './034-alerts.js';
import { migration as alertMuteUntil } from './035-alert-mute-until.js';
import { migration as agentRollupIndex } from './036-agent-rollup-index.js';
import { migration as agentMessageSearch } from './037-agent-message-search.js';
import { migration as jsonTextBySplit } from './038-json-text-by-split.js';
import type { Migration } from './migration.js';

export { migrationSql, type Migration, type MigrationDialect } from './migration.js';

/**
 * The schema of both stores, in order. To change the schema, add a file `NNN-name.ts` (the next
 * number) exporting `migration` with SQL for both dialects, and append it here; test/store/schema
 * checks that both stores still end with the same tables, columns and indexes.
 */
export const MIGRATIONS: readonly Migration[] = [
  authAndCalls,
  objectsAndFiles,
  feedbackAndPrices,
  tableStore,
  training,
  annotationQueues,
  membershipRole,
  uiSessions,
  backgroundJobs,
  monitors,
  viewerRoleAndAudit,
  retentionPolicies,
  objectWriteLocks,
  workerInference,
  callRollups,
  callCountsAndLatency,
  callTextIndex,
  callValuesByIndexer,
  callLatencyByIndexer,
  callStatusByIndexer,
  callDisplayByIndexer,
  callTokensByIndexer,
  callRollupPending,
  callCostByIndexer,
  callTokenRoots,
  callTraceNamesByIndexer,
  callEntryFillsOf019To022,
  callLatencyRoots,
  callOpNames,
  callStatusRoots,
  callCountsByWriters,
  callTextTrigrams,
  agentSpans,
  alerts,
  alertMuteUntil,
  agentRollupIndex,
  agentMessageSearch,
  jsonTextBySplit,
];

/**
 * Databases made before this list existed recorded PostgreSQL versions of their own: version 1
 * held what are now migrations 1 and 2, and version n > 1 is now migration n + 1. (SQLite's
 * `user_version` already counted the steps of this list.) Returns how many entries of MIGRATIONS
 * a legacy PostgreSQL database has applied.
 */
export function appliedByLegacyPostgresVersion(version: number): number {
  if (version <= 0) return 0;
  const applied = version + 1;
  if (applied > LEGACY_POSTGRES_LAST) throw new Error(`unknown legacy PostgreSQL schema version ${version}`);
  return applied;
}

/** The last entry a legacy PostgreSQL runner knew (its version 5, annotation queues). */
const LEGACY_POSTGRES_LAST = 6;
