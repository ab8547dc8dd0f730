import pg from 'pg';
import type { StoreLoad, TraceStore } from '../types.js';
import { CallWriter } from './call-writer.js';
import { PENDING_ROWS, RollupFolder } from './rollup-pending.js';
import { runMigrations } from './postgres-migrate.js';
import { PostgresAuthStore } from './postgres-auth-store.js';
import { PostgresCallStore } from './postgres-call-store.js';
import { PostgresFileStore } from './postgres-file-store.js';
import { PostgresObjectStore } from './postgres-object-store.js';
import { PostgresTableStore } from './postgres-table-store.js';
import { compactJsonText, diskStateOf, mapErrors, PG_TYPES } from './pg-support.js';
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
import { POSTGRES_DISTINCT_LIST } from '../sql/agent-span-groups.js';
import type { AgentSpanStore } from '../agent-types.js';
import type { MonitorStore } from '../monitor-types.js';
import type { JobStore } from '../job-types.js';
import { SqlRetentionStore } from '../sql/retention-store.js';
import { SqlCallRollupStore } from '../sql/call-rollup-store.js';
import { indexImportedCalls, POSTGRES_BACKFILL, SqlCallIndexStore } from '../sql/call-indexes/backfill.js';
import type { CallIndexStore } from '../call-index-types.js';
import type { RetentionStore } from '../retention-types.js';
import { PgTxRunner, POSTGRES_TX } from './pg-tx-runner.js';
import { postgresDialect } from './postgres-dialect.js';
import { ReadRouter, type ReadCounters } from './read-replicas.js';
import type { AnnotationStore } from '../annotation-types.js';
import type { TrainingStore } from '../training-types.js';
import type { CallTextIndex } from '../call-text-types.js';
import { POSTGRES_TEXT_INDEX } from '../sql/call-indexes/text-dialects.js';
import { SqlCallTextIndex } from '../sql/call-indexes/text-index.js';
import { PlannerStatistics, withPlannerStatistics } from './planner-statistics.js';
import { projectTables } from '../sql/project-tables.js';
import type { CompiledSql } from '../sql/core/sql-tag.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (every libpq-style parameter pg understands). */
  url: string;
  /** Connections for short statements: writes, reads by id, auth, objects, files. */
  maxConnections?: number;
  /** Connections for streaming queries, each held until its stream ends. */
  maxStreamConnections?: number;
  /** Call-write transactions in flight at once. */
  writeConcurrency?: number;
  /** Streaming replicas that serve reads (docs/scaling.md, "Read replicas"); none by default. */
  readUrls?: readonly string[];
  /** Longest a read waits for a replica to replay the primary's position before the primary answers. */
  replicaMaxWaitMs?: number;
  /** Call writes queued at once; more fail with 503 (docs/reliability-backpressure.md). Default: no bound. */
  maxPendingWrites?: number;
  /** Told of a background roll-up fold that failed (default: a JSON line on stderr); counted in foldFailures(). */
  onBackgroundError?: (error: unknown) => void;
}

/**
 * The PostgreSQL store. Everything durable lives in the database and no state is cached in the
 * process, so any number of Heddle processes can share one database and act as one service.
 * Streaming queries get their own pool so long-running streams never starve writes or auth.
 */
export class PostgresStore implements TraceStore {
  readonly kind = 'postgres' as const;
  readonly auth: PostgresAuthStore;
  readonly calls: PostgresCallStore;
  readonly objects: PostgresObjectStore;
  readonly files: PostgresFileStore;
  readonly tables: PostgresTableStore;
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
  readonly #pool: pg.Pool;
  readonly #streamPool: pg.Pool;
  readonly #writer: CallWriter;
  readonly #folder: RollupFolder;
  readonly #replicas: ReadRouter | null;
  /** Whether the database has the citus extension (read by migrate()): its tables may be sharded. */
  #citus = false;

  constructor(options: PostgresStoreOptions) {
    const base: pg.PoolConfig = {
      connectionString: options.url,
      types: PG_TYPES,
      application_name: 'heddle',
      idleTimeoutMillis: 30_000,
      options: sessionOptions(options.url),
    };
    this.#pool = new pg.Pool({ ...base, max: options.maxConnections ?? 10 });
    this.#streamPool = new pg.Pool({ ...base, max: options.maxStreamConnections ?? 8 });
    // An idle connection that breaks (server restart) is dropped by the pool; without a listener
    // the error would crash the process.
    for (const pool of [this.#pool, this.#streamPool]) {
      pool.on('error', () => undefined);
      // A checked-out connection has no pool listener: when its backend dies between two queries
      // (pg_terminate_backend, failover, a cursor waiting for its consumer) pg emits 'error' on the
      // client, which crashed the node (issue 17). The query in flight, or the next one, fails
      // instead, and the release with that error discards the connection.
      pool.on('connect', (client) => client.on('error', () => undefined));
    }
    this.#folder = new RollupFolder(
      this.#pool,
      options.onBackgroundError === undefined ? {} : { onError: options.onBackgroundError },
    );
    this.#writer = new CallWriter(this.#pool, {
      concurrency: options.writeConcurrency ?? 2,
      maxPending: options.maxPendingWrites,
      onRollupAppended: (rows) => this.#folder.noteAppended(rows),
    });
    const readUrls = options.readUrls ?? [];
    this.#replicas =
      readUrls.length === 0
        ? null
        : new ReadRouter(this.#pool, this.#streamPool, {
            urls: readUrls,
            maxWaitMs: options.replicaMaxWaitMs ?? 200,
            retryAfterMs: 5_000,
            base,
            maxConnections: options.maxConnections ?? 10,
            maxStreamConnections: options.maxStreamConnections ?? 8,
          });
    // auth, objects and everything inside a write stay on the primary
    const reads = this.#replicas?.short ?? this.#pool;
    const streamReads = this.#replicas?.stream ?? this.#streamPool;
    this.auth = new PostgresAuthStore(this.#pool);
    const tx = new PgTxRunner(this.#pool, reads);
    // no index is left to the background since migration 019 dropped `calls_by_latency`
    this.callIndexes = new SqlCallIndexStore(tx, POSTGRES_BACKFILL(postgresDialect), 5_000);
    // 500 calls a step: a step's transaction holds back the xid horizon below which the live tail
    // (and the indexer itself) read calls, cluster-wide, for as long as it renders texts
    this.callText = withPlannerStatistics(
      new SqlCallTextIndex(
        tx,
        POSTGRES_TEXT_INDEX(postgresDialect, () => this.#citus),
        500,
      ),
      new PlannerStatistics(this.#pool),
    );
    this.calls = new PostgresCallStore(this.#pool, this.#writer, reads, streamReads, async (projectId) => ({
      backfilled: await this.callIndexes.ready(projectId),
      covered: await this.callText.covers(projectId),
      costed: await this.callText.costCovers(projectId),
      pending: await this.callText.pendingFills(projectId),
    }));
    this.objects = new PostgresObjectStore(this.#pool);
    this.files = new PostgresFileStore(this.#pool, reads);
    this.tables = new PostgresTableStore(this.#pool, reads, streamReads);
    this.feedback = new SqlFeedbackStore(tx, postgresDialect, (sql) => `${sql}::jsonb`);
    this.costs = new SqlCostStore(tx, postgresDialect);
    this.audit = new SqlAuditStore(tx, postgresDialect);
    this.training = new SqlTrainingStore(tx, POSTGRES_TX);
    this.annotations = new SqlAnnotationStore(tx, POSTGRES_TX);
    this.jobs = new SqlJobStore(tx, POSTGRES_TX);
    this.monitors = new SqlMonitorStore(tx, POSTGRES_TX);
    this.alerts = new SqlAlertStore(tx, POSTGRES_TX);
    this.agentSpans = new SqlAgentSpanStore(tx, POSTGRES_TX, POSTGRES_DISTINCT_LIST);
    this.projectData = new SqlProjectDataStore(
      tx,
      postgresDialect,
      5_000,
      {
        columns: (table) => ({
          sql: `SELECT column_name AS name, data_type AS type, (is_identity = 'YES' OR is_generated <> 'NEVER') AS generated
          FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          params: [table],
        }),
        compactJson: compactJsonText,
        // imported calls are counted (migration 031); latency and input leaves are filled here
        afterInsert: (table, projectId, ids) =>
          table === 'calls'
            ? [
                recountCalls(projectId, ids as string[], 1),
                ...indexImportedCalls(POSTGRES_BACKFILL(postgresDialect), projectId, ids),
              ]
            : [],
        // the roll-up rows are exported as they are: with every pending change of the project in them
        beforeExport: (projectId) => this.#folder.foldProject(projectId),
      },
      projectTables('postgres'),
    );
    // Deleted rows are dead tuples that autovacuum reclaims (its default thresholds fire after a
    // retention run); a VACUUM here would hold a lock on the whole table.
    this.rollups = new SqlCallRollupStore(tx, POSTGRES_TX, PENDING_ROWS);
    this.retention = new SqlRetentionStore(
      tx,
      POSTGRES_TX,
      5_000,
      () => Promise.resolve({ mode: 'autovacuum', pages_released: 0, bytes_released: 0 }),
      (projectId, ids) => [recountCalls(projectId, ids, -1)],
    );
  }

  async migrate(): Promise<void> {
    const client = await mapErrors(() => this.#pool.connect());
    try {
      await mapErrors(() => runMigrations(client));
      const { rows } = await mapErrors(() => client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`));
      this.#citus = rows.length > 0;
    } finally {
      client.release();
    }
  }

  /**
   * Folds pending roll-up changes every second from now on, besides the folds after this node's
   * own writes (a server's store: rows of other nodes, of deletions, of a node that stopped).
   */
  startRollupFolds(): void {
    this.#folder.start();
  }

  /** Folds every pending roll-up change (of one project, when given) into the roll-up rows now (tests, tools). */
  foldRollupChanges(projectId: string | null = null): Promise<void> {
    return projectId === null ? this.#folder.foldAll() : this.#folder.foldProject(projectId);
  }

  /** Background roll-up folds that failed since start (each one logged; its rows stay pending and fold later). */
  foldFailures(): number {
    return this.#folder.failures;
  }

  /** Where reads went since start, when replicas are configured (null otherwise). */
  readCounters(): ReadCounters | null {
    return this.#replicas?.counters() ?? null;
  }

  load(): StoreLoad {
    return {
      pendingWrites: this.#writer.pending,
      // the call writer queues nothing but call writes
      pendingCallWrites: this.#writer.pending,
      waitingForConnection: this.#pool.waitingCount + this.#streamPool.waitingCount,
      diskFull: diskStateOf(this.#pool).reason,
    };
  }

  async close(): Promise<void> {
    await this.#writer.drain();
    await this.#folder.close();
    await Promise.all([this.#pool.end(), this.#streamPool.end(), this.#replicas?.close()]);
  }
}

/** Adds (1) or subtracts (-1) the stored visible calls `ids` to the project's counters (migration 031). */
function recountCalls(projectId: string, ids: readonly string[], sign: 1 | -1): CompiledSql {
  return { sql: 'SELECT heddle_recount_calls($1::text, $2::text[], $3::bigint)', params: [projectId, ids, sign] };
}

/**
 * The startup options of every connection: those of the URL's `options` parameter, then JIT off
 * unless the URL sets it. Heddle's queries read a page or a count through indexes, but
 * PostgreSQL's estimates for their candidate unions (docs/query-performance.md) often pass
 * `jit_above_cost`, and compiling such a plan cost 25–30 ms against 1.4 ms of execution (the
 * latency sort at 1M calls): JIT only pays for long scans, which the indexes are there to avoid.
 */
export function sessionOptions(url: string): string {
  let fromUrl = '';
  try {
    fromUrl = new URL(url).searchParams.get('options') ?? '';
  } catch {
    // not a URL (a libpq key=value string): pg reads its options itself; ours still apply
  }
  return /\bjit\s*=/.test(fromUrl) ? fromUrl : `${fromUrl} -c jit=off`.trim();
}
