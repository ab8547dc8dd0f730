import type Database from 'better-sqlite3';
import { RollupDelta } from '../../domain/call-rollup.js';
import { collectDescendants } from '../../domain/call-tree.js';
import type { CallPart } from '../types.js';
import { latencyMsSql } from '../sql/calls-query/latency.js';
import { CallCounting } from './call-counting.js';
import { applyRollupDelta, RolledUpCalls, rolledUpWrite } from './rollup-writes.js';
import { writerStatement } from './statements.js';

/**
 * The calls' writes, run on the writer connection in the writer thread. A part crosses the
 * thread as a plain array (kind code first, then the columns in statement order): cheaper to
 * clone than an object and bound positionally.
 */

const START = 0;
const END = 1;
const UPDATE = 2;

export type CallPartRow = unknown[];

const START_COLUMNS = `project_id, id, op_name, op_display_name, display_name, trace_id, parent_id, thread_id, turn_id,
                     started_at, attributes, inputs, otel_dump, wb_user_id, wb_run_id, wb_run_step`;
const SET_START = `op_name = excluded.op_name, op_display_name = excluded.op_display_name,
    display_name = COALESCE(excluded.display_name, calls.display_name),
    trace_id = excluded.trace_id, parent_id = excluded.parent_id, thread_id = excluded.thread_id, turn_id = excluded.turn_id,
    started_at = excluded.started_at, attributes = excluded.attributes, inputs = excluded.inputs, otel_dump = excluded.otel_dump,
    wb_user_id = excluded.wb_user_id, wb_run_id = excluded.wb_run_id, wb_run_step = excluded.wb_run_step`;
const SET_END = `ended_at = excluded.ended_at, exception = excluded.exception, output = excluded.output,
    summary = excluded.summary, wb_run_step_end = excluded.wb_run_step_end`;

const START_SQL = `
  INSERT INTO calls (${START_COLUMNS}, change_seq, rolled_up)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
  ON CONFLICT (project_id, id) DO UPDATE SET change_seq = excluded.change_seq, rolled_up = 1, ${SET_START},
    latency_ms = ${latencyMsSql('calls.ended_at', 'excluded.started_at')}`;

/**
 * A start and the end that follows it in the same batch, as one row: one insert instead of an
 * insert and an update of the whole row, and one entry in each index of `calls` instead of several
 * (what a batch of finished calls, the common ingest, is made of). `latency_ms` is a plain column:
 * its sort index, `call_latency`, is the call indexer's since migration 019 (call-indexes/text-index.ts).
 */
const START_END_SQL = `
  INSERT INTO calls (${START_COLUMNS}, ended_at, exception, output, summary, wb_run_step_end, latency_ms, change_seq, rolled_up)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
  ON CONFLICT (project_id, id) DO UPDATE SET change_seq = excluded.change_seq, rolled_up = 1, ${SET_START}, ${SET_END},
    latency_ms = excluded.latency_ms`;

const END_SQL = `
  INSERT INTO calls (project_id, id, ended_at, exception, output, summary, wb_run_step_end, change_seq, rolled_up)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
  ON CONFLICT (project_id, id) DO UPDATE SET change_seq = excluded.change_seq, rolled_up = 1, ${SET_END},
    latency_ms = ${latencyMsSql('excluded.ended_at', 'calls.started_at')}`;

const UPDATE_SQL = `
  INSERT INTO calls (project_id, id, display_name, change_seq, rolled_up) VALUES (?, ?, ?, ?, 1)
  ON CONFLICT (project_id, id) DO UPDATE SET display_name = excluded.display_name, change_seq = excluded.change_seq,
    rolled_up = 1`;

/** One live-tail position per write (ui-schema.ts): the single writer stamps them in commit order. */
const NEXT_CHANGE_SQL = "UPDATE change_counters SET value = value + 1 WHERE name = 'calls' RETURNING value";

const TOMBSTONE_SQL = `
  INSERT INTO calls (project_id, id, deleted_at, rolled_up) VALUES (?, ?, ?, 1)
  ON CONFLICT (project_id, id) DO UPDATE SET deleted_at = COALESCE(calls.deleted_at, excluded.deleted_at), rolled_up = 1`;

/** A part as the array `writeCallParts` takes (runs on the caller's thread). */
export function callPartRow(p: CallPart): CallPartRow {
  if (p.kind === 'start') {
    return [
      START,
      p.project_id,
      p.id,
      p.op_name,
      p.op_display_name,
      p.display_name,
      p.trace_id,
      p.parent_id,
      p.thread_id,
      p.turn_id,
      p.started_at,
      p.attributes,
      p.inputs,
      p.otel_dump,
      p.wb_user_id,
      p.wb_run_id,
      p.wb_run_step,
    ];
  }
  if (p.kind === 'end')
    return [END, p.project_id, p.id, p.ended_at, p.exception, p.output, p.summary, p.wb_run_step_end];
  return [UPDATE, p.project_id, p.id, p.display_name];
}

export function writeCallParts(db: Database.Database, rows: CallPartRow[]): void {
  const statements = [writerStatement(db, START_SQL), writerStatement(db, END_SQL), writerStatement(db, UPDATE_SQL)];
  const changeSeq = writerStatement(db, NEXT_CHANGE_SQL).pluck().get() as number;
  const endOf = endsFollowingStarts(rows);
  // the roll-up reads each call once before the write changes it and follows its parts
  // (rollup-writes.ts); the counters look at the same working copy before each start
  const rollup = new RolledUpCalls(db);
  rollup.load(endOf.notStartedFirst);
  const counting = new CallCounting(db);
  rows.forEach((row, i) => {
    const kind = row[0] as number;
    if (endOf.skip.has(i) || kind !== START) follow(rollup, counting, row);
    if (endOf.skip.has(i)) return;
    if (kind !== START) {
      statements[kind]!.run([...row.slice(1), changeSeq]);
      return;
    }
    const end = endOf.pairs.get(i);
    if (end === undefined) writeStart(db, rollup, START_SQL, [...row.slice(1), changeSeq]);
    else {
      const ended = end[3] as number;
      const span = ended - (row[10] as number);
      // floor((ended - started) / 1 ms) exactly as calls-query/latency.ts computes it in SQL
      const latency = (span - (((span % 1000) + 1000) % 1000)) / 1000;
      writeStart(db, rollup, START_END_SQL, [...row.slice(1), ...end.slice(3), latency, changeSeq]);
    }
    follow(rollup, counting, row);
  });
  deferSums(db, rollup, counting);
}

/**
 * The insert of a start (`values` bound to `upsert`, project and id first). The first part of a
 * call in a write is inserted as a new row; only when a row is stored already is it read for the
 * roll-up (the insert changed nothing) and then upserted.
 */
function writeStart(db: Database.Database, rollup: RolledUpCalls, upsert: string, values: unknown[]): void {
  const projectId = values[0] as string;
  const id = values[1] as string;
  if (!rollup.has(projectId, id)) {
    if (writerStatement(db, insertOnly(upsert)).run(values).changes === 1) {
      rollup.inserted(projectId, id);
      return;
    }
    rollup.read(projectId, id);
  }
  writerStatement(db, upsert).run(values);
}

/** An upsert's insert alone: `ON CONFLICT (project_id, id) DO NOTHING` instead of its update. */
const insertOnly = (upsert: string): string => INSERT_ONLY.get(upsert)!;
const INSERT_ONLY = new Map(
  [START_SQL, START_END_SQL].map((sql) => [
    sql,
    `${sql.slice(0, sql.indexOf(' ON CONFLICT'))} ON CONFLICT (project_id, id) DO NOTHING`,
  ]),
);

/**
 * The roll-up and counter changes of a run of call writes in one group, added up and written once
 * before the next other write of the group and before its commit (group-commit.ts): a group of
 * many small writes then upserts each roll-up row once. A write adds its changes only after all
 * its statements ran, so a write whose savepoint fails adds nothing.
 */
const pendingSums = new WeakMap<Database.Database, { rollup: RollupDelta; counting: CallCounting }>();

function deferSums(db: Database.Database, rollup: RolledUpCalls, counting: CallCounting): void {
  let pending = pendingSums.get(db);
  if (!pending) pendingSums.set(db, (pending = { rollup: new RollupDelta(), counting: new CallCounting(db) }));
  rollup.addTo(pending.rollup);
  counting.mergeInto(pending.counting);
}

/** Writes the changes the group's call writes left (in the group's transaction). */
export function flushCallSums(db: Database.Database): void {
  const pending = pendingSums.get(db);
  if (!pending) return;
  pendingSums.delete(db);
  pending.counting.flush();
  applyRollupDelta(db, pending.rollup);
}

/** Forgets them (the group's transaction rolled back). */
export function discardCallSums(db: Database.Database): void {
  pendingSums.delete(db);
}

/** What a part changes of the columns the roll-up and the counters read (positions as `callPartRow` lays them out). */
function follow(rollup: RolledUpCalls, counting: CallCounting, row: CallPartRow): void {
  const projectId = row[1] as string;
  const id = row[2] as string;
  if (row[0] === START) {
    counting.beforeStart(projectId, id, row[10] as number, rollup.current(projectId, id));
    rollup.started(projectId, id, row[3] as string | null, row[10] as number | null);
  } else if (row[0] === END)
    rollup.ended(projectId, id, row[3] as number | null, row[4] as string | null, row[6] as string | null);
  else rollup.touched(projectId, id);
}

/**
 * Pairs each start with the first end of the same call after it in the batch (unless another start
 * of that call comes between): writing the end together with the start gives the same row as
 * writing them in order, since nothing between them changes the end's columns (docs/spec/calls.md §3).
 * Also lists the calls whose first part in the batch is not a start (the roll-up reads them first).
 */
function endsFollowingStarts(rows: CallPartRow[]): {
  pairs: Map<number, CallPartRow>;
  skip: Set<number>;
  notStartedFirst: [projectId: string, id: string][];
} {
  const pairs = new Map<number, CallPartRow>();
  const skip = new Set<number>();
  const notStartedFirst: [string, string][] = [];
  // by project, then id: the position of the call's start still waiting for its end, −1 for none
  const open = new Map<string, Map<string, number>>();
  rows.forEach((row, i) => {
    const kind = row[0] as number;
    const projectId = row[1] as string;
    const id = row[2] as string;
    let calls = open.get(projectId);
    if (!calls) open.set(projectId, (calls = new Map()));
    const start = calls.get(id);
    if (start === undefined && kind !== START) notStartedFirst.push([projectId, id]);
    if (kind === START) calls.set(id, i);
    else if (kind === END && start !== undefined && start >= 0) {
      pairs.set(start, row);
      skip.add(i);
      calls.set(id, -1);
    } else if (start === undefined) calls.set(id, -1);
  });
  return { pairs, skip, notStartedFirst };
}

/** Tombstones the calls and every live descendant in their traces; returns how many ids were marked. */
export function deleteCallsCascade(
  db: Database.Database,
  args: { projectId: string; ids: string[]; deletedAt: number },
): number {
  const { projectId, deletedAt } = args;
  const requested = [...new Set(args.ids)];
  const collected = new Set(requested);
  const placeholders = requested.map(() => '?').join(', ');
  const traces = db
    .prepare(
      `SELECT DISTINCT trace_id FROM calls WHERE project_id = ? AND id IN (${placeholders})
              AND started_at IS NOT NULL AND deleted_at IS NULL`,
    )
    .all(projectId, ...requested) as { trace_id: string }[];
  if (traces.length > 0) {
    const tracePlaceholders = traces.map(() => '?').join(', ');
    const live = db
      .prepare(
        `SELECT id, parent_id FROM calls WHERE project_id = ? AND trace_id IN (${tracePlaceholders})
                AND started_at IS NOT NULL AND deleted_at IS NULL`,
      )
      .all(projectId, ...traces.map((t) => t.trace_id)) as { id: string; parent_id: string | null }[];
    collectDescendants(collected, live);
  }
  const tombstone = writerStatement(db, TOMBSTONE_SQL);
  const delta = new RollupDelta();
  for (const id of collected) rolledUpWrite(db, delta, projectId, id, () => tombstone.run(projectId, id, deletedAt));
  applyRollupDelta(db, delta);
  return collected.size;
}

/** The names of the calls table's indexes (statistics are refreshed one index per writer turn). */
export function callIndexNames(db: Database.Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls'")
    .pluck()
    .all() as string[];
}

/** Full planner statistics for one index (sampled ones misjudge a project's or an op's row count). */
export function analyzeIndex(db: Database.Database, index: string): void {
  db.pragma('analysis_limit = 0');
  db.exec(`ANALYZE "${index.replace(/"/g, '""')}"`);
}
