import type { CallTextIndex, CallTextStep } from '../../call-text-types.js';
import { statementWhere } from './backfill.js';
import { type CompiledSql, frag, raw, sqlTag, type Fragment, type SqlTag } from '../core/sql-tag.js';
import { all, runAll, type Tx, type TxRunner } from '../core/sql-tx.js';
import type { TextIndexDialect } from './text-dialects.js';
import { costStep, costWorkWaiting, firstCostGen, insertIndexedCost } from './cost-entries.js';
import { ENTRY_FILLS, filledFromStart, fillStep, fillWorkWaiting, indexedFillEntries } from './entry-fills.js';
import { defaultPricesStamp } from '../calls-query/cost.js';

/** How long a "covers" answer is reused. */
const COVERS_TTL_MS = 1_000;

/** A project's cover, as `covers`, `costCovers` and `pendingFills` answer (cached for COVERS_TTL_MS). */
interface IndexCover {
  at: number;
  covers: boolean;
  costed: boolean;
  pending: readonly string[];
}

interface Mark {
  indexed_seq: number | string;
  indexed_id: string;
  nulls_done: number;
  null_id: string;
}

/**
 * The call indexer, written once for both stores over the transaction runner: the substring index,
 * `call_values` (the leaves of equalities: those of `inputs` here, of `output` and `attributes` as
 * fills), `call_cost` (migration 024, call-indexes/cost-entries.ts)
 * and the entries of the fills (call-indexes/entry-fills.ts: `call_latency`, the latency sort, migration 019;
 * `call_status`, the status filter and sort, 020; `call_display`, 021; `call_tokens`, the token sort,
 * 022; `call_token_roots`, 025; `call_trace_names`, 026; `call_latency_roots`, 028; `call_op_names`,
 * 029; `call_status_roots`, 030), under one mark per project. Each
 * step is one transaction over one project's calls that the indexes do not hold yet: first those
 * without a `change_seq` in id order, then those after the project's mark in `(change_seq, id)`
 * order. A rewritten call gets a new `change_seq`, so it is in the tail again until its entries are
 * written again (a text is replaced; leaves, latency, status and token entries are added, stale ones
 * stay and only add candidates); queries read the tail by the `calls_by_change (project_id, change_seq,
 * id)` index (calls-query/text.ts, calls-query/expr-values.ts).
 */
export class SqlCallTextIndex implements CallTextIndex {
  readonly #sql: SqlTag;
  readonly #covers = new Map<string, IndexCover>();
  /** The project of the last step: the next one starts after it, so every project takes its turn. */
  #last: string | null = null;
  /** The same for the cost entries' and the fills' steps. */
  readonly #lastBackground: { cost: string | null; fill: string | null } = { cost: null, fill: null };
  #backgroundTurn = false;

  readonly #runStep: (step: IndexerStep) => Promise<CallTextStep>;
  /** Whether the tables are distributed (Citus): the list of waiting projects is read another way. */
  readonly #sharded: () => boolean;

  /**
   * `runStep` runs one step's transaction (indexerStepBody); by default through `tx`. The SQLite
   * store runs it on its writer thread as one command instead.
   */
  constructor(
    private readonly tx: TxRunner,
    dialect: TextIndexDialect,
    private readonly stepCalls: number,
    runStep?: (step: IndexerStep) => Promise<CallTextStep>,
  ) {
    this.#sql = sqlTag(dialect.d);
    this.#sharded = () => dialect.distributed?.() ?? false;
    this.#runStep = runStep ?? ((step) => tx.transaction(indexerStepBody(dialect, step)));
  }

  async covers(projectId: string): Promise<boolean> {
    return (await this.#state(projectId)).covers;
  }

  async costCovers(projectId: string): Promise<boolean> {
    return (await this.#state(projectId)).costed;
  }

  async pendingFills(projectId: string): Promise<readonly string[]> {
    return (await this.#state(projectId)).pending;
  }

  /** Whether the indexes cover the project, its cost entries are complete, which fills are not done (cached). */
  async #state(projectId: string): Promise<IndexCover> {
    const now = Date.now();
    const cached = this.#covers.get(projectId);
    if (cached !== undefined && now - cached.at <= COVERS_TTL_MS) return cached;
    const [row] = await this.tx.read<{ costed: number | null }>(
      this.#sql`SELECT (SELECT 1 FROM call_cost_gens g WHERE g.project_id = m.project_id
          AND g.rebuilt_after IS NULL AND g.prices = ${defaultPricesStamp()}) AS costed
        FROM call_text_marks m WHERE m.project_id = ${projectId} AND m.nulls_done = 1`,
    );
    const done = row === undefined ? new Set<string>() : await this.#doneFills(projectId);
    if (this.#covers.size > 10_000) this.#covers.clear();
    const state = {
      at: now,
      covers: row !== undefined,
      costed: row !== undefined && row.costed !== null,
      pending: ENTRY_FILLS.map((fill) => fill.name).filter((name) => !done.has(name)),
    };
    this.#covers.set(projectId, state);
    return state;
  }

  async #doneFills(projectId: string): Promise<Set<string>> {
    const rows = await this.tx.read<{ entries: string }>(
      this.#sql`SELECT entries FROM call_entry_fills WHERE project_id = ${projectId} AND filled_after IS NULL`,
    );
    return new Set(rows.map((r) => r.entries));
  }

  /**
   * Every other step goes to the background entries first: a project's cost generation
   * (call-indexes/cost-entries.ts), then the fills of entries added by a migration (call-indexes/entry-fills.ts), so
   * they progress under sustained ingest too; either side runs when the other has nothing to do.
   */
  async step(maxCalls = this.stepCalls): Promise<CallTextStep> {
    const backgroundFirst = this.#backgroundTurn;
    this.#backgroundTurn = !backgroundFirst;
    if (backgroundFirst) {
      const background = await this.#backgroundStep(maxCalls);
      if (background.project !== null) return background;
    }
    const text = await this.#textStep(maxCalls);
    return text.project !== null || backgroundFirst ? text : this.#backgroundStep(maxCalls);
  }

  async #backgroundStep(maxCalls: number): Promise<CallTextStep> {
    const cost = await this.#backgroundTurnOf('cost', costWorkWaiting, maxCalls);
    if (cost.project !== null) return cost;
    return this.#backgroundTurnOf('fill', fillWorkWaiting, maxCalls);
  }

  /** One step of the cost entries or of the fills, when `waiting` reads any work. */
  async #backgroundTurnOf(
    kind: 'cost' | 'fill',
    waiting: (sql: SqlTag) => CompiledSql,
    maxCalls: number,
  ): Promise<CallTextStep> {
    if ((await this.tx.read(waiting(this.#sql))).length === 0) return { calls: 0, project: null };
    const done = await this.#runStep({ kind, maxCalls, after: this.#lastBackground[kind] ?? '' });
    if (done.project !== null) {
      this.#lastBackground[kind] = done.project;
      this.#covers.delete(done.project);
    }
    return done;
  }

  async #textStep(maxCalls: number): Promise<CallTextStep> {
    // an idle store answers from a read: no write transaction (on SQLite, no turn of the writer)
    if ((await this.tx.read(waitingProjects(this.#sql, frag``, this.#sharded()))).length === 0)
      return { calls: 0, project: null };
    const done = await this.#runStep({ kind: 'text', maxCalls, after: this.#last });
    if (done.project !== null) {
      this.#last = done.project;
      this.#covers.delete(done.project);
    }
    return done;
  }
}

/**
 * One step of the call indexer (`kind`: the texts, leaves and entries of calls not indexed yet; a
 * cost generation's; a fill's), as a transaction body built from plain values only, so that it
 * runs wherever the store runs its transactions: on the SQLite writer thread as one named command
 * (write-commands.ts `callText.step`, no turn of the main thread between its statements), on a
 * PostgreSQL connection through the transaction runner.
 */
export interface IndexerStep {
  kind: 'text' | 'cost' | 'fill';
  maxCalls: number;
  /** The project of the previous step of this kind (the next one starts after it); null for none. */
  after: string | null;
}

export function indexerStepBody(dialect: TextIndexDialect, step: IndexerStep): () => Tx<CallTextStep> {
  const sql = sqlTag(dialect.d);
  const { lock } = dialect;
  const { maxCalls } = step;
  if (step.kind !== 'text') {
    const after = step.after ?? '';
    const body =
      step.kind === 'cost'
        ? () => costStep(sql, dialect.d, maxCalls, after)
        : () => fillStep(sql, dialect, maxCalls, after);
    return function* () {
      if (lock !== null) yield* all(sql`${raw(lock)}`);
      return yield* body();
    };
  }
  const { upsertText, insertValues } = dialect;
  // the indexes of the calls `c` matching `where`: the text first (its count is the step's)
  const indexWhere = (where: Fragment): CompiledSql[] => [
    statementWhere(sql, upsertText, where),
    statementWhere(sql, (w) => insertValues(w, 'inputs'), where),
    insertIndexedCost(sql, dialect.d, where),
    ...indexedFillEntries(sql, dialect, where),
  ];
  // where writes commit out of change_seq order (PostgreSQL), a step passes only finished ones
  const horizon = dialect.d.changeHorizon ?? null;
  const last = step.after;
  const sharded = dialect.distributed?.() ?? false;
  return function* () {
    if (lock !== null) yield* all(sql`${raw(lock)}`);
    let below: Fragment = frag``;
    if (horizon !== null) {
      const [h] = yield* all<{ h: number | string }>(sql`SELECT ${raw(horizon)} AS h`);
      below = frag` AND t.change_seq < ${Number(h!.h)}`;
    }
    const waiting = yield* all<{ project_id: string }>(waitingProjects(sql, below, sharded));
    if (waiting.length === 0) return { calls: 0, project: null };
    const project = (waiting.find((w) => last !== null && w.project_id > last) ?? waiting[0]!).project_id;
    let [mark] = yield* all<Mark>(
      sql`SELECT indexed_seq, indexed_id, nulls_done, null_id FROM call_text_marks WHERE project_id = ${project}`,
    );
    if (mark === undefined) {
      mark = { indexed_seq: 0, indexed_id: '', nulls_done: 0, null_id: '' };
      // the indexer writes every call of the project from here: no generation or fill to write besides
      yield* runAll([
        sql`INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id)
            VALUES (${project}, 0, '', 0, '')`,
        ...completeFromNewMark(sql, project),
      ]);
    }
    if (Number(mark.nulls_done) === 0) {
      // calls written before migration 008 or imported have no change_seq: indexed in id order
      const ids = yield* all<{ id: string }>(
        sql`SELECT t.id FROM calls t WHERE t.project_id = ${project} AND t.change_seq IS NULL AND t.id > ${mark.null_id}
            ORDER BY t.id LIMIT ${maxCalls}`,
      );
      const lastId = ids.at(-1)?.id;
      const statements: CompiledSql[] = [];
      if (lastId !== undefined)
        statements.push(
          ...indexWhere(
            frag`c.project_id = ${project} AND c.change_seq IS NULL AND c.id > ${mark.null_id} AND c.id <= ${lastId}`,
          ),
        );
      statements.push(sql`UPDATE call_text_marks SET null_id = ${lastId ?? mark.null_id},
          nulls_done = ${ids.length < maxCalls ? 1 : 0} WHERE project_id = ${project}`);
      yield* runAll(statements);
      return { calls: ids.length, project };
    }
    const from = [Number(mark.indexed_seq), mark.indexed_id];
    const after = frag`t.project_id = ${project} AND (t.change_seq, t.id) > (${from[0]}, ${from[1]})${below}`;
    // the step ends at the maxCalls-th call in (change_seq, id) order, or at the last one
    let [end] = yield* all<{ s: number | string; id: string }>(
      sql`SELECT t.change_seq AS s, t.id FROM calls t WHERE ${after}
          ORDER BY t.change_seq, t.id LIMIT 1 OFFSET ${maxCalls - 1}`,
    );
    end ??= (yield* all<{ s: number | string; id: string }>(
      sql`SELECT t.change_seq AS s, t.id FROM calls t WHERE ${after} ORDER BY t.change_seq DESC, t.id DESC LIMIT 1`,
    ))[0];
    if (end === undefined) return { calls: 0, project };
    const upto = Number(end.s);
    const [calls] = yield* runAll([
      ...indexWhere(
        frag`c.project_id = ${project} AND (c.change_seq, c.id) > (${from[0]}, ${from[1]})
            AND (c.change_seq, c.id) <= (${upto}, ${end.id})`,
      ),
      sql`UPDATE call_text_marks SET indexed_seq = ${upto}, indexed_id = ${end.id} WHERE project_id = ${project}`,
    ]);
    return { calls: calls ?? 0, project };
  };
}

/**
 * The projects with calls the index does not hold (in key order), each project found by one index
 * seek. Under Citus (`sharded`), which cannot route a recursive statement over a distributed table,
 * the projects with a mark are found from the marks, each shard probing its calls after each mark,
 * and those without one by each shard's distinct projects of `calls` (a scan of its
 * `calls_pkey`, docs/scaling.md).
 */
function waitingProjects(sql: SqlTag, below: Fragment, sharded: boolean): CompiledSql {
  if (sharded)
    return sql`SELECT m.project_id FROM call_text_marks m
      WHERE m.nulls_done = 0
        OR EXISTS (SELECT 1 FROM calls t WHERE t.project_id = m.project_id AND (t.change_seq, t.id) > (m.indexed_seq, m.indexed_id)${below})
      UNION SELECT c.project_id FROM calls c
        WHERE NOT EXISTS (SELECT 1 FROM call_text_marks x WHERE x.project_id = c.project_id)
      ORDER BY 1`;
  return sql`WITH RECURSIVE p(id) AS (
      SELECT MIN(project_id) FROM calls
      UNION ALL SELECT (SELECT MIN(c.project_id) FROM calls c WHERE c.project_id > p.id) FROM p WHERE p.id IS NOT NULL)
    SELECT p.id AS project_id FROM p LEFT JOIN call_text_marks m ON m.project_id = p.id
    WHERE p.id IS NOT NULL AND (m.project_id IS NULL OR m.nulls_done = 0
      OR EXISTS (SELECT 1 FROM calls t WHERE t.project_id = p.id AND (t.change_seq, t.id) > (m.indexed_seq, m.indexed_id)${below}))
    ORDER BY p.id`;
}

/**
 * A project's new mark (none before, or removed by an import): the indexer writes the entries of every
 * call of the project from the start, the cost entries in the generation it begins complete
 * (call-indexes/cost-entries.ts) and the fills' entries with the others, so none needs a pass of its own.
 */
function completeFromNewMark(sql: SqlTag, project: string): CompiledSql[] {
  return [firstCostGen(sql, project, null), ...filledFromStart(sql, project)];
}
