import type Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { StoreLoad, TraceStore } from '../types.js';
import { openConnection } from './connection.js';
import { ReadPool } from './read-pool.js';
import { SqliteAuthStore } from './sqlite-auth-store.js';
import { SqliteCallStore } from './sqlite-call-store.js';
import { SqliteFileStore } from './sqlite-file-store.js';
import { SqliteObjectStore } from './sqlite-object-store.js';
import { SqliteTableStore } from './sqlite-table-store.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { SqliteWriter } from './writer.js';
import { SqlAnnotationStore } from '../sql/annotation-store.js';
import { SqlCostStore } from '../sql/cost-store.js';
import { SqlAuditStore } from '../sql/audit-store.js';
import { SqlFeedbackStore } from '../sql/feedback-store.js';
import { SqlProjectDataStore } from '../sql/project-data-store.js';
import { SqlTrainingStore } from '../sql/training-store.js';
import { SqlJobStore } from '../sql/job-queue.js';
import { SqlMonitorStore } from '../sql/monitor-store.js';
import { SqlAlertStore } from '../sql/alert-store.js';
import type { AlertStore } from '../alert-types.js';
import { SqlAgentSpanStore } from '../sql/agent-span-store.js';
import { SQLITE_DISTINCT_LIST } from '../sql/agent-span-groups.js';
import type { AgentSpanStore } from '../agent-types.js';
import type { MonitorStore } from '../monitor-types.js';
import { SqlRetentionStore } from '../sql/retention-store.js';
import { SqlCallRollupStore } from '../sql/call-rollup-store.js';
import { indexImportedCalls, SqlCallIndexStore, SQLITE_BACKFILL } from '../sql/call-indexes/backfill.js';
import { countImportedCalls } from './call-counting.js';
import type { CallIndexStore } from '../call-index-types.js';
import type { RetentionStore, SpaceReport } from '../retention-types.js';
import type { JobStore } from '../job-types.js';
import { SQLITE_TX, SqliteTxRunner } from './sqlite-tx-runner.js';
import type { AnnotationStore } from '../annotation-types.js';
import type { TrainingStore } from '../training-types.js';
import type { CallTextIndex } from '../call-text-types.js';
import { SQLITE_TEXT_INDEX } from '../sql/call-indexes/text-dialects.js';
import { SqlCallTextIndex } from '../sql/call-indexes/text-index.js';

export interface SqliteStoreOptions {
  /** Database file; its folder is created when missing. */
  file: string;
  /** `FULL` survives power loss; `NORMAL` survives a process crash and commits faster. */
  synchronous?: 'FULL' | 'NORMAL';
  maxReadConnections?: number;
  /** Writes queued at once; more fail with 503 (docs/reliability-backpressure.md). Default: no bound. */
  maxPendingWrites?: number;
  /**
   * Whether the writer thread carries on the call indexer's steps by itself while the main thread is
   * busy (index-catch-up.ts). The server turns it on; off, the indexer advances only by the steps
   * asked for (what tests that stop it part-way rely on).
   */
  indexCatchUp?: boolean;
}

/**
 * The embedded store: one writer connection with group commit in the writer thread, reads on
 * their own connections in this thread (the auth reads on every request on one of their own).
 */
export class SqliteStore implements TraceStore {
  readonly kind = 'sqlite' as const;
  readonly auth: SqliteAuthStore;
  readonly calls: SqliteCallStore;
  readonly objects: SqliteObjectStore;
  readonly files: SqliteFileStore;
  readonly tables: SqliteTableStore;
  readonly feedback: SqlFeedbackStore;
  readonly costs: SqlCostStore;
  readonly audit: SqlAuditStore;
  readonly training: TrainingStore;
  readonly annotations: AnnotationStore;
  readonly jobs: JobStore;
  readonly monitors: MonitorStore;
  readonly alerts: AlertStore;
  readonly agentSpans: AgentSpanStore;
  readonly projectData: SqlProjectDataStore;
  readonly retention: RetentionStore;
  readonly rollups: SqlCallRollupStore;
  readonly callIndexes: CallIndexStore;
  readonly callText: CallTextIndex;
  readonly #db: Database.Database;
  readonly #writer: SqliteWriter;
  readonly #reads: ReadPool;

  constructor(options: SqliteStoreOptions) {
    fs.mkdirSync(path.dirname(options.file), { recursive: true });
    const synchronous = options.synchronous ?? 'NORMAL';
    // opened (and the file created, in WAL mode) before the writer thread starts
    this.#db = openConnection(options.file, synchronous, false);
    this.#writer = new SqliteWriter({
      file: options.file,
      synchronous,
      indexCatchUp: options.indexCatchUp ?? false,
      maxPending: options.maxPendingWrites,
    });
    this.#reads = new ReadPool(() => openConnection(options.file, synchronous, true), options.maxReadConnections ?? 8);
    this.auth = new SqliteAuthStore(this.#db, this.#writer);
    const tx = new SqliteTxRunner(this.#writer, this.#reads);
    this.callIndexes = new SqlCallIndexStore(tx, SQLITE_BACKFILL(sqliteDialect), 1_000);
    this.callText = new SqlCallTextIndex(tx, SQLITE_TEXT_INDEX(sqliteDialect), 1_000, (step) =>
      this.#writer.submit('callText.step', step),
    );
    this.calls = new SqliteCallStore(this.#writer, this.#reads, async (projectId) => ({
      backfilled: await this.callIndexes.ready(projectId),
      covered: await this.callText.covers(projectId),
      costed: await this.callText.costCovers(projectId),
      pending: await this.callText.pendingFills(projectId),
    }));
    this.objects = new SqliteObjectStore(this.#writer, this.#reads);
    this.files = new SqliteFileStore(this.#writer, this.#reads);
    this.tables = new SqliteTableStore(this.#writer, this.#reads);
    this.feedback = new SqlFeedbackStore(tx, sqliteDialect);
    this.costs = new SqlCostStore(tx, sqliteDialect);
    this.audit = new SqlAuditStore(tx, sqliteDialect);
    this.training = new SqlTrainingStore(tx, SQLITE_TX);
    this.annotations = new SqlAnnotationStore(tx, SQLITE_TX);
    this.jobs = new SqlJobStore(tx, SQLITE_TX);
    this.monitors = new SqlMonitorStore(tx, SQLITE_TX);
    this.alerts = new SqlAlertStore(tx, SQLITE_TX);
    this.agentSpans = new SqlAgentSpanStore(tx, SQLITE_TX, SQLITE_DISTINCT_LIST, (records, ifAbsent) =>
      this.#writer.submit('agentSpans.write', { records, ifAbsent }),
    );
    this.projectData = new SqlProjectDataStore(tx, sqliteDialect, 1_000, {
      columns: (table) => ({
        sql: 'SELECT name, type, 0 AS generated FROM pragma_table_info(@p1) ORDER BY cid',
        params: [table],
      }),
      afterInsert: (table, projectId, ids) =>
        table === 'calls'
          ? [countImportedCalls(projectId, ids), ...indexImportedCalls(SQLITE_BACKFILL(sqliteDialect), projectId, ids)]
          : [],
    });
    this.rollups = new SqlCallRollupStore(tx, SQLITE_TX);
    this.retention = new SqlRetentionStore(tx, SQLITE_TX, 1_000, () => this.#reclaimSpace());
  }

  /** `incremental_vacuum` in steps of 2,048 pages (8 MiB at 4 KiB pages), each one short writer turn. */
  async #reclaimSpace(): Promise<SpaceReport> {
    let released = 0;
    for (;;) {
      const step = await this.#writer.submit('space.reclaim', { maxPages: 2048 });
      released += step.released;
      if (step.mode !== 'incremental' || step.released === 0 || step.remaining === 0)
        return { mode: step.mode, pages_released: released, bytes_released: released * step.pageSize };
    }
  }

  async migrate(): Promise<void> {
    await this.#writer.submit('migrate');
  }

  load(): StoreLoad {
    return {
      pendingWrites: this.#writer.pending,
      pendingCallWrites: this.#writer.pendingCallWrites,
      waitingForConnection: this.#reads.waiting,
      diskFull: this.#writer.disk.reason,
    };
  }

  async close(): Promise<void> {
    await this.#writer.close();
    this.#reads.closeAll();
    this.#db.close();
  }
}
