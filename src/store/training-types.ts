/**
 * Storage contract of the training area (docs/spec/training.md §4–§6): models, checkpoints (with their
 * bytes), `/log` history, and the durable job queue with leases and fencing tokens. Instants are
 * integer microseconds; JSON travels as JSON text. Every table is keyed by `project_id` first;
 * the id directory (path ids name no project) and the worker list are the global exceptions.
 */

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';
export type JobKind = 'rl' | 'sft';
export type EventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

export interface TrainingModelRow {
  project_id: string;
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id: string | null;
  created_by: string;
  created_at: number;
  /** Set when deleted: the row stays as a tombstone so the id answers 404, never re-registers. */
  deleted_at: number | null;
  /** Highest step ever created (step numbers are never reused, §4.4). */
  last_step: number;
  /** Trainer that produced the newest checkpoint, null before the first job. */
  trainer: string | null;
}

export interface CheckpointRow {
  project_id: string;
  model_id: string;
  id: string;
  step: number;
  /** JSON text of `{string: number}`. */
  metrics: string;
  trainer: string | null;
  created_at: number;
}

export interface TrainingJobRow {
  project_id: string;
  id: string;
  model_id: string;
  kind: JobKind;
  status: JobStatus;
  base_model: string;
  created_by: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  parent_step: number | null;
  step: number | null;
  checkpoint_id: string | null;
  num_sequences: number | null;
  num_gradient_steps: number;
  error_message: string | null;
  /** JSON text of the job's input (RL: trajectory groups + config; SFT: URL + config). */
  input: string;
  trainer: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** Incremented on every lease; writes by an older holder are refused. */
  fencing_token: number;
  /** JSON text of the averaged gradient-step metrics, set on success. */
  metrics: string | null;
}

export interface TrainingEventRow {
  project_id: string;
  job_id: string;
  /** 1, 2, 3… per job: the order of the event stream and the idempotency key of worker posts. */
  seq: number;
  id: string;
  type: EventType;
  /** JSON text. */
  data: string;
  created_at: number;
}

export interface LogHistoryRow {
  project_id: string;
  model_id: string;
  id: string;
  step: number;
  split: string;
  /** JSON text of the prefixed metrics. */
  metrics: string;
  /** JSON text of the logged trajectory groups, verbatim (§4.5 step 2). */
  groups: string;
  recorded_at: number;
}

/** Which queued jobs a leaser may take, by base model. */
export interface LeaseFilter {
  /** Only these base models (null = any). */
  include: string[] | null;
  /** Never these base models. */
  exclude: string[];
  /** Only jobs of these entities (null = any): a worker with a non-admin key serves its own entities. */
  entities?: string[] | null;
}

export interface LeaseRequest {
  owner: string;
  trainer: string;
  now: number;
  leaseMicros: number;
  filter: LeaseFilter;
}

/** A job just leased: the row (status running, token incremented) and what it trains from. */
export interface LeasedJob {
  job: TrainingJobRow;
  parentStep: number;
  /** The checkpoint of `parentStep`; null for step 0. */
  parentCheckpointId: string | null;
}

export interface EventAppend {
  id: string;
  type: EventType;
  data: string;
  created_at: number;
  /** The sender's sequence number (worker protocol); a repeat of a stored one returns it unchanged. */
  seq?: number;
}

export type WriteOutcome<T> =
  { ok: true; value: T } | { ok: false; reason: 'stale' | 'finished' | 'not_found' | 'out_of_order' };

export interface JobSuccess {
  now: number;
  eventId: string;
  checkpointId: string;
  checkpoint: Uint8Array;
  /** Training metrics (averages of gradient steps, unprefixed). */
  metrics: Record<string, number>;
  numGradientSteps: number;
  /**
   * A history row the job writes at its new step in the same transaction (the reward statistics of
   * the groups it trained on, src/services/training/job-history.ts); `step` and `recorded_at` are the
   * new step and `now`. Absent or null: none.
   */
  history?: { id: string; split: string; metrics: string; groups: string } | null;
}

export interface TrainingStore {
  /** Which project a model or job id lives in (the directory of path ids). */
  resolveId(id: string): Promise<{ project_id: string; kind: 'model' | 'job' } | null>;
  getModel(projectId: string, id: string): Promise<TrainingModelRow | null>;
  /** The live model of that name in the project, or null. */
  getModelByName(projectId: string, name: string): Promise<TrainingModelRow | null>;
  /** Creates the model, or returns the live model of that name (created false). */
  createModel(row: TrainingModelRow): Promise<{ model: TrainingModelRow; created: boolean }>;
  /** Live models of the given entities (null = all), ascending by id, after `afterId`. */
  listModels(
    entities: string[] | null,
    project: string | null,
    afterId: string | null,
    limit: number,
  ): Promise<TrainingModelRow[]>;
  /** Tombstones the model, drops checkpoints and history, fails its open jobs. Null when unknown or already deleted. */
  deleteModel(
    projectId: string,
    id: string,
    now: number,
    message: string,
    newId: () => string,
  ): Promise<{ deletedCheckpoints: number } | null>;
  listCheckpoints(
    projectId: string,
    modelId: string,
    afterStep: number | null,
    order: 'asc' | 'desc',
    limit: number,
  ): Promise<CheckpointRow[]>;
  /** Step of a checkpoint id of this model, or null. */
  checkpointStep(projectId: string, modelId: string, checkpointId: string): Promise<number | null>;
  /** The checkpoint at `step`, or the newest one when `step` is null. */
  getCheckpoint(projectId: string, modelId: string, step: number | null): Promise<CheckpointRow | null>;
  checkpointData(projectId: string, modelId: string, checkpointId: string): Promise<Uint8Array | null>;
  /** Deletes the given steps; returns the steps that existed. */
  deleteCheckpoints(projectId: string, modelId: string, steps: number[]): Promise<number[]>;
  /**
   * History row plus merge of its metrics into the checkpoint of `row.step` (when it exists);
   * `replaceId` names a history row of the same model that the new row replaces (deleted in the
   * same transaction; no-op when it is gone).
   */
  appendLog(row: LogHistoryRow, replaceId?: string | null): Promise<void>;
  /** The model's history rows of `split` at `step`, with their `groups`, ascending by id. */
  logRowsAt(projectId: string, modelId: string, split: string, step: number): Promise<LogHistoryRow[]>;
  /**
   * `/log` history rows of a model, ascending by id (UUIDv7: the order they were logged), after
   * `afterId`; `groups` is left out (empty string) so a UI can read every metric without the
   * trajectories.
   */
  listLogHistory(projectId: string, modelId: string, afterId: string | null, limit: number): Promise<LogHistoryRow[]>;
  createJob(row: TrainingJobRow): Promise<void>;
  /** Jobs of a model, ascending by id (UUIDv7: creation order), after `afterId`. */
  listJobs(projectId: string, modelId: string, afterId: string | null, limit: number): Promise<TrainingJobRow[]>;
  getJob(projectId: string, id: string): Promise<TrainingJobRow | null>;
  listEvents(projectId: string, jobId: string, afterSeq: number | null, limit: number): Promise<TrainingEventRow[]>;
  eventSeq(projectId: string, jobId: string, eventId: string): Promise<number | null>;
  /** Atomically claims the oldest eligible queued job (per-model FIFO, one running job per model). */
  leaseJob(request: LeaseRequest): Promise<LeasedJob | null>;
  /** Extends the lease; false when the token is stale or the job is no longer running. */
  heartbeat(projectId: string, jobId: string, token: number, now: number, leaseMicros: number): Promise<boolean>;
  /** Appends a progress event under the current token (never a terminal one: see completeJob/failJob). */
  appendEvent(
    projectId: string,
    jobId: string,
    token: number,
    event: EventAppend,
  ): Promise<WriteOutcome<TrainingEventRow>>;
  /** Stores the checkpoint at `last_step + 1`, marks the job succeeded and appends `training_ended`. */
  completeJob(
    projectId: string,
    jobId: string,
    token: number,
    success: JobSuccess,
  ): Promise<WriteOutcome<{ step: number }>>;
  /** Fails a job with `training_failed`; token null = any holder (sweeper, service). */
  failJob(
    projectId: string,
    jobId: string,
    token: number | null,
    message: string,
    now: number,
    eventId: string,
  ): Promise<WriteOutcome<null>>;
  /**
   * The holder hands a running job back: queued again (lease cleared) when it has no event yet,
   * else failed with `message` and `training_failed`. 409-style outcomes as for failJob.
   */
  releaseJob(
    projectId: string,
    jobId: string,
    token: number,
    message: string,
    now: number,
    eventId: string,
  ): Promise<WriteOutcome<{ requeued: boolean }>>;
  /** Fails running jobs whose lease expired and queued jobs created before `queuedBefore`; returns how many. */
  sweep(
    now: number,
    queuedBefore: number,
    messages: { leaseExpired: string; queueTimeout: string },
    newId: () => string,
  ): Promise<number>;
  /**
   * A worker's advertisement of the base models it serves and, when it serves completions, its
   * inference endpoint (null clears an earlier one). Upserts by worker id.
   */
  recordWorker(workerId: string, baseModels: string[], now: number, inference?: WorkerInference | null): Promise<void>;
  /** Marks a known worker as seen at `now` (a heartbeat keeps its advertisement live); no-op when unknown. */
  touchWorker(workerId: string, now: number): Promise<void>;
  /** Base models advertised by workers seen at or after `since`. */
  liveWorkerModels(since: number): Promise<string[]>;
  /** Workers seen at or after `since`, most recently seen first. */
  liveWorkers(since: number): Promise<TrainingWorkerRow[]>;
  /** A trivial round trip (system check). */
  ping(): Promise<void>;
}

/** Where a worker answers chat completions (docs/training-worker-protocol.md, "Inference"). */
export interface WorkerInference {
  url: string;
  token: string;
}

export interface TrainingWorkerRow {
  worker_id: string;
  base_models: string[];
  last_seen: number;
  inference: WorkerInference | null;
}
