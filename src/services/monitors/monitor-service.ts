import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { MonitorSettings } from '../../config/config.js';
import { uuidv7 } from '../../domain/ids.js';
import { parseMonitor, sampledIn, type MonitorSpec } from '../../domain/monitors.js';
import { nowMicros } from '../../domain/time.js';
import type { BackgroundJobRow } from '../../store/job-types.js';
import type { MonitorCursorRow } from '../../store/monitor-types.js';
import type { CallChangeCursor, TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import { compileWhere } from '../call-query-service.js';
import { callerOf, StoredCaller, storedCaller } from '../evaluations/server-eval/evaluation-jobs.js';
import { runBounded } from '../evaluations/server-eval/pool.js';
import type { ScoreCallsArgs } from '../evaluations/server-eval/score-calls.js';
import type { JobHandler, JobQueue } from '../jobs/index.js';
import type { BackgroundLog } from '../../domain/log.js';

/** The job kind that reads a monitor's new calls and scores its sample (docs/monitors.md). */
export const MONITOR_SCAN = 'monitor_scan';

const MonitorScanInput = Type.Object({ monitor_id: Type.String() });

/** Active monitors one poll looks at. */
const POLL_LIMIT = 1000;

/** After a scan job failed (a scorer that throws for good, a lost database), the next waits this long. */
const RETRY_AFTER_FAILURE_MICROS = 30_000_000;

/** What scores calls: the `/calls/score` job body (server-eval/score-calls.ts). */
export interface MonitorScoring {
  scoreCalls(args: ScoreCallsArgs): Promise<void>;
}

/** Calls written by scoring (monitors, `/calls/score`, server-side evaluations) are never monitored, so monitors cannot feed each other. */
function isScoringCall(attributes: string | null): boolean {
  if (attributes === null) return false;
  try {
    const parsed = JSON.parse(attributes) as { _weave_eval_meta?: { score?: unknown } } | null;
    return parsed?._weave_eval_meta?.score === true;
  } catch {
    return false;
  }
}

/**
 * Online monitors (docs/monitors.md): a published `Monitor` object's latest version says whether
 * it is active; its cursor in the project's call write order lives in the store. A poll on every
 * node queues a `monitor_scan` job for each active monitor with calls past its cursor (one open
 * scan per monitor across nodes); the job reads the new calls in batches, keeps the finished ones
 * its filter (op names + the calls query language) matches, samples them by hash, records each
 * (monitor, call) pair once, then scores the pairs as `/calls/score` would.
 */
export class MonitorService {
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;
  #log: BackgroundLog | null = null;

  constructor(
    private readonly store: TraceStore,
    private readonly scoring: MonitorScoring,
    private readonly runtime: JobQueue,
    private readonly settings: MonitorSettings,
  ) {}

  /** An object version was published: a Monitor starts (from the calls written next), stays, or stops. */
  async published(
    caller: Caller,
    projectId: string,
    objectId: string,
    baseClass: string | null,
    val: unknown,
  ): Promise<void> {
    if (baseClass !== 'Monitor') return;
    const spec = parseMonitor(projectId, val);
    await this.store.monitors.follow({
      projectId,
      monitorId: objectId,
      active: spec.active,
      caller: JSON.stringify(storedCaller(caller)),
      head: await this.#writtenHead(projectId),
      now: nowMicros(),
    });
  }

  /**
   * The position after the project's last committed call write. On PostgreSQL `changeHead` stays
   * behind writes that already committed while an older transaction still runs (types.ts), and
   * those calls ended before the monitor existed: step over them as the live tail's opening scan does.
   */
  async #writtenHead(projectId: string): Promise<CallChangeCursor> {
    let head = await this.store.calls.changeHead();
    for await (const row of this.store.calls.query({
      project_id: projectId,
      changed_after: head,
      include_uncertain_changes: true,
      columns: ['id'],
    }))
      head = { seq: Number(row.change_seq), id: row.id };
    return head;
  }

  /**
   * One poll: queues a scan job for every active monitor with unread calls or pairs still to score (a
   * scan that ran out of time after reading a batch leaves them); returns how many were queued.
   */
  async pollOnce(): Promise<number> {
    let queued = 0;
    for (const row of await this.store.monitors.listActive(POLL_LIMIT)) {
      if (!(await this.#unread(row.project_id, row.cursor)) && !(await this.#unscored(row.project_id, row.monitor_id)))
        continue;
      const claimed = await this.store.monitors.claimScan(
        row.project_id,
        row.monitor_id,
        {
          project_id: row.project_id,
          id: uuidv7(),
          kind: MONITOR_SCAN,
          input: JSON.stringify({ monitor_id: row.monitor_id } satisfies Static<typeof MonitorScanInput>),
          created_by: callerOf(Value.Parse(StoredCaller, JSON.parse(row.caller))).userId,
          created_at: nowMicros(),
          max_attempts: this.runtime.settings.maxAttempts,
        },
        RETRY_AFTER_FAILURE_MICROS,
      );
      if (claimed) queued += 1;
    }
    if (queued > 0) this.runtime.wake();
    return queued;
  }

  async #unread(projectId: string, cursor: CallChangeCursor): Promise<boolean> {
    for await (const _ of this.store.calls.query({
      project_id: projectId,
      changed_after: cursor,
      limit: 1,
      columns: ['id'],
    }))
      return true;
    return false;
  }

  async #unscored(projectId: string, monitorId: string): Promise<boolean> {
    return (await this.store.monitors.pending(projectId, monitorId, 1)).length > 0;
  }

  handler(): JobHandler {
    return { run: (job, signal) => this.scan(job, signal) };
  }

  /**
   * The scan job: works off pending pairs and new calls until none are left, or for at most the
   * scan time (then it ends so other jobs get the runner; the next poll queues the next scan).
   */
  async scan(job: BackgroundJobRow, signal: AbortSignal): Promise<void> {
    const { monitor_id: monitorId } = Value.Parse(MonitorScanInput, JSON.parse(job.input));
    const projectId = job.project_id;
    const until = Date.now() + this.settings.scanSeconds * 1000;
    for (;;) {
      signal.throwIfAborted();
      const state = await this.store.monitors.get(projectId, monitorId);
      if (state === null || !state.active) return;
      const monitor = await this.#latest(projectId, monitorId);
      if (monitor === null || !monitor.spec.active) {
        // deleted (no publication told the cursor): stop polling for it until a new active version
        await this.store.monitors.follow({
          projectId,
          monitorId,
          active: false,
          caller: state.caller,
          head: state.cursor,
          now: nowMicros(),
        });
        return;
      }
      await this.#scorePending(state, monitor, signal);
      const read = await this.#readBatch(state, monitor.spec);
      if (read === 0) {
        await this.#scorePending(state, monitor, signal);
        return;
      }
      if (Date.now() >= until) return;
    }
  }

  async #latest(projectId: string, monitorId: string): Promise<{ ref: string; spec: MonitorSpec } | null> {
    const row = await this.store.objects.findVersion(projectId, monitorId, { by: 'latest' });
    if (row === null || row.deleted_at !== null || row.base_object_class !== 'Monitor') return null;
    return {
      ref: `weave:///${projectId}/object/${monitorId}:${row.digest}`,
      spec: parseMonitor(projectId, JSON.parse(row.val)),
    };
  }

  /** Reads one batch past the cursor; records the sampled matches and moves the cursor. Returns the calls read. */
  async #readBatch(state: MonitorCursorRow, spec: MonitorSpec): Promise<number> {
    const { project_id: projectId, monitor_id: monitorId } = state;
    const rows = [];
    for await (const row of this.store.calls.query({
      project_id: projectId,
      changed_after: state.cursor,
      limit: this.settings.batch,
      columns: ['id', 'ended_at'],
    }))
      rows.push(row);
    const last = rows.at(-1);
    if (last === undefined) return 0;
    const finished = rows.filter((r) => r.ended_at !== null).map((r) => r.id);
    const matched = await this.#matching(projectId, spec, finished);
    const sampled = matched.filter((id) => sampledIn(projectId, monitorId, id, spec.samplingRate));
    await this.store.monitors.record(
      projectId,
      monitorId,
      { seq: Number(last.change_seq), id: last.id },
      sampled,
      nowMicros(),
    );
    return rows.length;
  }

  /** The monitor's filter as a calls query over the candidates: one compiler for every calls filter. */
  async #matching(projectId: string, spec: MonitorSpec, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    let where;
    try {
      where = compileWhere(spec.query as Parameters<typeof compileWhere>[0]);
    } catch (error) {
      // a query the calls language refuses matches nothing (the client publishes any value)
      this.#log?.warn({ err: error, project_id: projectId }, 'monitor query is not a valid calls query');
      return [];
    }
    const out: string[] = [];
    for await (const row of this.store.calls.query({
      project_id: projectId,
      filter: { call_ids: ids, op_names: spec.opNames.length > 0 ? spec.opNames : null },
      where,
      sort_by: [],
      columns: ['id', 'attributes'],
    }))
      if (!isScoringCall(row.attributes)) out.push(row.id);
    return out;
  }

  async #scorePending(state: MonitorCursorRow, monitor: { ref: string; spec: MonitorSpec }, signal: AbortSignal) {
    const { project_id: projectId, monitor_id: monitorId } = state;
    const caller = callerOf(Value.Parse(StoredCaller, JSON.parse(state.caller)));
    const scored = (callId: string) => this.store.monitors.markScored(projectId, monitorId, [callId], nowMicros());
    for (;;) {
      const pending = await this.store.monitors.pending(projectId, monitorId, this.settings.batch);
      if (pending.length === 0) return;
      signal.throwIfAborted();
      if (monitor.spec.scorers.length === 0) {
        await this.store.monitors.markScored(projectId, monitorId, pending, nowMicros());
        continue;
      }
      // `concurrency` lanes, each scoring its share in order (a judge is a remote model: pairs wait on it)
      const lanes = Array.from({ length: Math.min(this.settings.concurrency, pending.length) }, (_, lane) =>
        pending.filter((_id, i) => i % this.settings.concurrency === lane),
      );
      await runBounded(
        lanes.map(
          (callIds) => () =>
            this.scoring.scoreCalls({
              caller,
              projectId,
              callIds,
              scorerRefs: monitor.spec.scorers,
              origin: { idSpace: `monitor/${monitorId}`, triggerRef: monitor.ref },
              signal,
              onScored: scored,
            }),
        ),
        lanes.length,
      );
    }
  }

  start(log: BackgroundLog): void {
    this.#log = log;
    this.#schedule();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#polling = this.pollOnce()
        .then(() => undefined)
        .catch((error: unknown) => this.#log?.warn({ err: error }, 'monitor poll failed'))
        .finally(() => {
          this.#polling = null;
          if (this.#timer !== null) this.#schedule();
        });
    }, this.settings.pollMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#polling;
  }
}
