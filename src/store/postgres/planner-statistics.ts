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
      const due = await client.query<{ relname: string }>(
        `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
          WHERE s.schemaname = current_schema() AND s.relname = ANY($1::text[])
            AND s.n_mod_since_analyze > 1000 + GREATEST(c.reltuples, 0)
          ORDER BY s.relname`,
        [GROWING_TABLES],
      );
      if (due.rows.length === 0) return [];
      const locked = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${ANALYZE_LOCK_KEY}) AS ok`);
      if (!locked.rows[0]!.ok) return [];
      try {
        const tables = due.rows.map((r) => r.relname);
        // names from the fixed list above, never from input
        await client.query(`ANALYZE ${tables.join(', ')}`);
        return tables;
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${ANALYZE_LOCK_KEY})`);
      }
    } finally {
      client.release();
    }
  }
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
