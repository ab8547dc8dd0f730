import type pg from 'pg';
import type { CallTextIndex, CallTextStep } from '../call-text-types.js';

/** The tables a burst grows: `calls`, the call indexer's (docs/query-performance.md) and the agent spans'. */
const GROWING_TABLES = [
  'calls',
  'call_texts',
  'call_values',
  'call_latency',
  'call_latency_roots',
  'call_status',
  'call_status_roots',
  'call_display',
  'call_tokens',
  'call_token_roots',
  'call_cost',
  'call_trace_names',
  'call_op_names',
  // agent spans (docs/agents.md): the conversation and trace reads plan on these
  'agent_spans',
  'agent_span_messages',
  'agent_span_attrs',
];

/** How often at most the statistics are looked at. */
const CHECK_EVERY_MS = 2_000;
/** The advisory lock that lets one node at a time analyze (another node skips its turn). */
const ANALYZE_LOCK_KEY = '4811030';

/**
 * Planner statistics kept up with a burst (issue 30). A table that grew from nothing has none
 * (`reltuples` -1) or those of when it was empty, and PostgreSQL then plans the traces table's walks
 * as nested loops over what it believes are a few rows: a latency sort over 30,000 calls took 0.8 s
 * instead of 60 ms, and one planned a second after a burst ran for minutes. Autovacuum analyzes too
 * late for that (a naptime of a minute, and behind under load). So after the indexer's steps, at
 * most every two seconds, the tables that have at least doubled since their last analysis (or grew
 * by a thousand rows from none) are analyzed: about ten times for a table growing to a million rows.
 * PostgreSQL's own counters say what changed (`pg_stat_user_tables.n_mod_since_analyze`): nothing is
 * kept here that a restart would need.
 */
export class PlannerStatistics {
  #checked = 0;
  #running: Promise<string[]> | null = null;
  /** Whether `calls` is distributed by Citus; once it is, it stays (nothing undistributes it). */
  #distributed = false;

  constructor(private readonly pool: pg.Pool) {}

  /** Analyzes the tables that are due (at most every CHECK_EVERY_MS, one round at a time); returns them. */
  async refreshIfDue(now = Date.now()): Promise<string[]> {
    if (this.#running !== null || now - this.#checked < CHECK_EVERY_MS) return [];
    this.#checked = now;
    this.#running = this.#refresh();
    try {
      return await this.#running;
    } finally {
      this.#running = null;
    }
  }

  async #refresh(): Promise<string[]> {
    const client = await this.pool.connect();
    try {
      const tables = (await this.#sharded(client)) ? await dueOnShards(client) : await dueHere(client);
      if (tables.length === 0) return [];
      const locked = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${ANALYZE_LOCK_KEY}) AS ok`);
      if (!locked.rows[0]!.ok) return [];
      try {
        // names from the fixed list above, never from input; Citus runs it on every shard
        await client.query(`ANALYZE ${tables.join(', ')}`);
        return tables;
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${ANALYZE_LOCK_KEY})`);
      }
    } finally {
      client.release();
    }
  }

  /** Whether the tables are Citus's shells, their rows (and counters) on the workers' shards. */
  async #sharded(client: pg.PoolClient): Promise<boolean> {
    if (this.#distributed) return true;
    const { rows } = await client.query<{ citus: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`,
    );
    if (!rows[0]!.citus) return false;
    const partition = await client.query<{ sharded: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'calls'::regclass) AS sharded`,
    );
    this.#distributed = partition.rows[0]!.sharded;
    return this.#distributed;
  }
}

/** The growing tables whose rows changed by more than 1,000 plus their count since their last analysis. */
async function dueHere(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ relname: string }>(
    `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema() AND s.relname = ANY($1::text[])
        AND s.n_mod_since_analyze > 1000 + GREATEST(c.reltuples, 0)
      ORDER BY s.relname`,
    [GROWING_TABLES],
  );
  return rows.map((r) => r.relname);
}

/**
 * The same on Citus, where the coordinator's tables are empty shells whose counters never move:
 * each worker reports which of its shards (`calls_102008`, …) are due, by the same rule, as one
 * comma-separated list of their tables (`run_command_on_workers` takes one text result a node). A
 * worker that cannot answer is left out this round.
 */
async function dueOnShards(client: pg.PoolClient): Promise<string[]> {
  const shardName = `^(${GROWING_TABLES.join('|')})_[0-9]+$`;
  const perWorker = `SELECT COALESCE(string_agg(DISTINCT regexp_replace(s.relname, '_[0-9]+$', ''), ','), '')
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
    WHERE s.schemaname = current_schema() AND s.relname ~ '${shardName}'
      AND s.n_mod_since_analyze > 1000 + GREATEST(c.reltuples, 0)`;
  const { rows } = await client.query<{ success: boolean; result: string }>(
    'SELECT success, result FROM run_command_on_workers($1)',
    [perWorker],
  );
  const due = new Set(rows.filter((r) => r.success).flatMap((r) => r.result.split(',')));
  return GROWING_TABLES.filter((table) => due.has(table));
}

/** `index` with the statistics looked at after each step that did work; the step reports what was analyzed. */
export function withPlannerStatistics(index: CallTextIndex, statistics: PlannerStatistics): CallTextIndex {
  return {
    covers: (projectId) => index.covers(projectId),
    costCovers: (projectId) => index.costCovers(projectId),
    pendingFills: (projectId) => index.pendingFills(projectId),
    step: async (maxCalls?: number): Promise<CallTextStep> => {
      const step = await index.step(maxCalls);
      if (step.project === null) return step;
      const analyzed = await statistics.refreshIfDue();
      return analyzed.length === 0 ? step : { ...step, analyzed };
    },
  };
}
