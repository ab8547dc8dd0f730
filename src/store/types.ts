import type { Operation, SortKey } from '../domain/query/ast.js';
import type { EntityRole, MembershipRecord } from '../domain/roles.js';
import type { CallField } from '../domain/call-fields.js';
import type { ExpandPath } from '../domain/ref-expansion.js';
import type { CallChangeCursor, CallPlacement, CallRow } from '../domain/rows.js';

export type { CallChangeCursor } from '../domain/rows.js';
import type {
  FileCommitOutcome,
  FileRecord,
  ObjectCreateOutcome,
  ObjectLabels,
  ObjectsQuery,
  ObjectVersionInsert,
  ObjectVersionRow,
  VersionSelector,
} from './object-types.js';
import type { CostStore, FeedbackStore } from './feedback-types.js';
import type { TableStore } from './table-types.js';
import type { TrainingStore } from './training-types.js';
import type { JobStore } from './job-types.js';
import type { AgentSpanStore } from './agent-types.js';
import type { MonitorStore } from './monitor-types.js';
import type { AlertStore } from './alert-types.js';
import type { AnnotationStore } from './annotation-types.js';
import type { ProjectDataStore } from './project-data-types.js';
import type { AuditStore } from './audit-types.js';
import type { RetentionStore } from './retention-types.js';
import type { CallRollupStore } from './rollup-types.js';
import type { CallIndexStore } from './call-index-types.js';
import type { CallTextIndex } from './call-text-types.js';

export type { CallRow } from '../domain/rows.js';
export type * from './object-types.js';
export type * from './feedback-types.js';
export type * from './table-types.js';
export type * from './project-data-types.js';
export type * from './audit-types.js';
export type { EntityRole, MembershipRecord } from '../domain/roles.js';
export type * from './retention-types.js';
export type * from './rollup-types.js';
export type * from './call-index-types.js';

/**
 * The storage contract every adapter (SQLite, PostgreSQL) fulfils. Services depend on this file
 * only. Instants are integer microseconds since the Unix epoch; JSON payloads travel as JSON text
 * so adapters never re-serialise them.
 */
export interface TraceStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly auth: AuthStore;
  readonly calls: CallStore;
  readonly objects: ObjectStore;
  readonly files: FileStore;
  readonly feedback: FeedbackStore;
  readonly costs: CostStore;
  /** Tables (docs/spec/objects.md §4). */
  readonly tables: TableStore;
  /** Training models, checkpoints and the job queue (training spec). */
  readonly training: TrainingStore;
  /** Annotation queues, their items and per-annotator progress (docs/spec/otel-service-queues.md §D). */
  readonly annotations: AnnotationStore;
  /** The background job queue: server-side evaluations, call scoring (docs/architecture.md). */
  readonly jobs: JobStore;
  /** Online monitors' cursors and at-most-once scoring keys (docs/monitors.md). */
  readonly monitors: MonitorStore;
  /** Alerts' states, history and notification outbox (docs/alerts.md). */
  readonly alerts: AlertStore;
  /** Agent spans: GenAI spans with typed columns (docs/spec/agents.md). */
  readonly agentSpans: AgentSpanStore;
  /** Row counts and deletion of a whole project (docs/export.md "Project deletion"). */
  readonly projectData: ProjectDataStore;
  /** Who changed keys, roles, prices or retention, or deleted data, per entity (docs/roles-and-audit.md). */
  readonly audit: AuditStore;
  /** Retention policies and the deletion of expired calls (docs/export.md "Retention"). */
  readonly retention: RetentionStore;
  /** The hourly call roll-up behind `/calls/stats` (docs/call-rollups.md). */
  readonly rollups: CallRollupStore;
  /** The call indexes of migration 016 and their backfill (docs/query-performance.md). */
  readonly callIndexes: CallIndexStore;
  /** The substring index of `$contains` (migration 017) and its indexer (docs/query-performance.md). */
  readonly callText: CallTextIndex;
  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /**
   * How loaded the store is now: no I/O, cheap enough to read on every request (the back-pressure
   * hook in src/plugins/overload.ts and `/health` do).
   */
  load(): StoreLoad;
  /** Flushes pending writes, then closes every connection. */
  close(): Promise<void>;
}

/** What `TraceStore.load` reports (docs/reliability-backpressure.md). */
export interface StoreLoad {
  /**
   * Writes accepted and not yet committed: the SQLite writer's queue, the PostgreSQL call writer's.
   * A write that would take it past the store's `maxPendingWrites` fails at once with 503.
   */
  pendingWrites: number;
  /**
   * Of those, the writes of calls (`calls.write`: the ingest of every route that stores calls). The
   * call indexer yields to these, not to the background loops' own writes.
   */
  pendingCallWrites: number;
  /** Callers waiting for a database connection (SQLite read pool, PostgreSQL pools). */
  waitingForConnection: number;
  /** Why the last write failed for lack of disk space (`SQLITE_FULL`, …); null when it did not. */
  diskFull: string | null;
}

// ---------------------------------------------------------------- auth

export interface UserRecord {
  id: string;
  username: string;
  default_entity: string;
  created_at: number;
}

export interface ApiKeyRecord {
  id: string;
  user_id: string;
  username: string;
  is_admin: boolean;
  /** First characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

/** A member of an entity (memberships joined with users). */
export interface EntityMemberRecord {
  user_id: string;
  username: string;
  role: EntityRole;
}

export interface ProjectRecord {
  project_id: string;
  entity: string;
  /** User id of the creator. */
  created_by: string;
  created_at: number;
}

export interface AuthStore {
  /** The key whose SHA-256 hash (hex) is given, with its user; null when unknown. Revoked keys are returned with `revoked_at` set. */
  findKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { user: UserRecord }) | null>;
  /** Creates the user when missing (by username) and returns it. */
  ensureUser(username: string, defaultEntity: string): Promise<UserRecord>;
  /** Makes the user a member of the entity, creating the entity when missing. Idempotent. */
  addMembership(userId: string, entity: string): Promise<void>;
  /** Entities the user belongs to, sorted. */
  listEntities(userId: string): Promise<string[]>;
  /** Stores a new key; the hash must be unique (a second insert of the same hash is a no-op). */
  createApiKey(key: {
    id: string;
    user_id: string;
    key_hash: string;
    prefix: string;
    is_admin: boolean;
  }): Promise<void>;
  /** Every key, newest first, revoked ones included. */
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no such key. */
  revokeApiKey(id: string): Promise<boolean>;
  countApiKeys(): Promise<number>;
  /** Records a project on first write; a no-op when it exists. */
  ensureProject(projectId: string, entity: string, createdBy: string): Promise<void>;
  /** The recorded project, or null when it was never created (GraphQL `project`). */
  findProject(projectId: string): Promise<ProjectRecord | null>;
  /** Whether an entity exists (has members or projects). */
  entityExists(entity: string): Promise<boolean>;
  /** The user with that name, or null. */
  findUser(username: string): Promise<UserRecord | null>;
  /** The user's memberships with their role, sorted by entity. */
  listMemberships(userId: string): Promise<MembershipRecord[]>;
  /** The members of an entity with their role, sorted by user name. */
  listMembers(entity: string): Promise<EntityMemberRecord[]>;
  /** Sets the role of an existing membership (no-op when the user is not a member). */
  setMembershipRole(userId: string, entity: string, role: MembershipRecord['role']): Promise<void>;
  /** The key with that id (revoked or not), or null. */
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** Keys of the users who are members of the entity, newest first, revoked ones included. */
  listApiKeysOfEntity(entity: string): Promise<ApiKeyRecord[]>;
  /** Stores a browser session (the token only as its SHA-256 hash); expired sessions are purged on the way. */
  createSession(session: UiSessionRecord): Promise<void>;
  /**
   * The key and user behind an unexpired session whose key is not revoked, or null. The key is
   * read on every call, so revoking it ends its sessions on every node at once.
   */
  findSession(tokenHash: string, now: number): Promise<(ApiKeyRecord & { user: UserRecord }) | null>;
  /** Ends a session; a no-op when unknown. */
  deleteSession(tokenHash: string): Promise<void>;
  /**
   * Projects of the given entities (null: every project), with their latest call start, newest
   * first (projects without calls last, by project_id). One indexed probe per project, no counting.
   */
  listProjects(entities: readonly string[] | null): Promise<ProjectSummaryRow[]>;
}

/** A browser session of the web UI (table `ui_sessions`). */
export interface UiSessionRecord {
  token_hash: string;
  user_id: string;
  api_key_id: string;
  created_at: number;
  expires_at: number;
}

export interface ProjectSummaryRow {
  project_id: string;
  entity: string;
  created_at: number;
  /** Latest `started_at` of any call of the project (deleted ones included), null when none. */
  last_call_at: number | null;
}

// ---------------------------------------------------------------- calls

/** The start part of a call (docs/spec/calls.md §2.2), JSON fields as text. */
export interface CallStartPart extends CallPlacement {
  kind: 'start';
  attributes: string;
  inputs: string;
  otel_dump: string | null;
  wb_user_id: string;
  wb_run_id: string | null;
  wb_run_step: number | null;
}

/** The end part of a call (docs/spec/calls.md §2.3). */
export interface CallEndPart {
  kind: 'end';
  project_id: string;
  id: string;
  ended_at: number;
  exception: string | null;
  output: string | null;
  summary: string;
  wb_run_step_end: number | null;
  /**
   * The value `summary` is the JSON text of, when the part's maker holds it (call-service.ts): a
   * value JSON.parse could give (no bigint, boxed number or `toJSON`), so that it reads as the text
   * does. PostgreSQL's call writer reads the usage for the call roll-up from it instead of parsing
   * `summary` again. Never written to the store.
   */
  parsed_summary?: unknown;
}

/** A rename through `/call/update`; applies whenever the start arrives. */
export interface CallUpdatePart {
  kind: 'update';
  project_id: string;
  id: string;
  display_name: string;
}

export type CallPart = CallStartPart | CallEndPart | CallUpdatePart;

/** Top-level fields a query may project; the always-selected ones are added by the store. */
export type CallRowColumn = Exclude<
  keyof CallRow,
  'storage_size_bytes' | 'total_storage_size_bytes' | 'wb_username' | 'change_seq'
>;

/** Columns loaded for a call row; the always-selected ones of docs/spec/calls.md §5.6 come first. */
export const ALWAYS_SELECTED: readonly CallRowColumn[] = [
  'id',
  'trace_id',
  'project_id',
  'op_name',
  'started_at',
  'op_display_name',
];
export const ALL_CALL_COLUMNS: readonly CallRowColumn[] = [
  'project_id',
  'id',
  'op_name',
  'op_display_name',
  'display_name',
  'trace_id',
  'parent_id',
  'thread_id',
  'turn_id',
  'started_at',
  'attributes',
  'inputs',
  'otel_dump',
  'wb_user_id',
  'wb_run_id',
  'wb_run_step',
  'ended_at',
  'exception',
  'output',
  'summary',
  'wb_run_step_end',
];

/** The structured fast filters of docs/spec/calls.md §5.4, lists already validated. */
export interface CallsFilter {
  op_names?: string[] | null;
  input_refs?: string[] | null;
  output_refs?: string[] | null;
  parent_ids?: string[] | null;
  trace_ids?: string[] | null;
  call_ids?: string[] | null;
  thread_ids?: string[] | null;
  turn_ids?: string[] | null;
  trace_roots_only?: boolean | null;
  wb_user_ids?: string[] | null;
  wb_run_ids?: string[] | null;
}

export interface CallsQuery {
  project_id: string;
  filter?: CallsFilter | null;
  /** The validated `query.$expr`. */
  where?: Operation<CallField> | null;
  /** null = default order (`started_at asc, id asc`); [] = insertion order. */
  sort_by?: SortKey<CallField>[] | null;
  /** null or 0 = unlimited. */
  limit?: number | null;
  offset?: number | null;
  /** Columns to load; null = all. */
  columns?: CallRowColumn[] | null;
  include_storage_size?: boolean;
  include_total_storage_size?: boolean;
  /** Also load `wb_username` (the user name of `wb_user_id`). */
  include_usernames?: boolean;
  /** `expand_columns`, shallowest first: filters and sorts see through refs at these paths. */
  expand?: ExpandPath[] | null;
  /** Only calls with `started_at` in [from, to) — used by stats. */
  started_from?: number | null;
  started_before?: number | null;
  /**
   * Live tail: only calls written (started, ended, renamed) after this position, in write order
   * (`change_seq`, then id), each row carrying its `change_seq`; `sort_by` is ignored.
   */
  changed_after?: CallChangeCursor | null;
  /**
   * With `changed_after`: every write already committed past the position, even those the tail
   * still holds back behind an older running transaction (the opening scan of a tail).
   */
  include_uncertain_changes?: boolean;
}

export interface CallStore {
  /**
   * Writes parts, merging them by (project_id, id) in any order: a later start replaces start
   * fields, a later end replaces end fields, an update sets the display name. Resolves once the
   * parts are committed; all parts of one call are applied atomically.
   */
  write(parts: CallPart[]): Promise<void>;
  /** A visible (started, not deleted) call, or null. */
  read(
    projectId: string,
    id: string,
    opts?: { include_storage_size?: boolean; include_total_storage_size?: boolean },
  ): Promise<CallRow | null>;
  /**
   * Streams matching visible calls in the requested order without loading the whole result.
   * Throws InvalidRequestError for literals the query cannot use (for example an unparseable date).
   */
  query(q: CallsQuery): AsyncIterable<CallRow>;
  /** Number of matching visible calls (at most `limit + 1` rows are counted when a limit is given) and, on request, the trace storage total. */
  count(q: CallsQuery): Promise<{ count: number; total_storage_size_bytes: number | null }>;
  /**
   * Marks the given calls and every live descendant within their traces deleted (docs/spec/calls.md §3.1).
   * Ids that do not exist are remembered as deleted too. Returns the number of distinct ids marked.
   */
  deleteCascade(projectId: string, ids: string[], deletedAt: number): Promise<number>;
  /**
   * The live-tail position of "now": a `changed_after` query from it returns exactly the calls
   * whose writes commit later. On PostgreSQL `change_seq` is the writing transaction's id and a
   * `changed_after` query only returns rows of transactions older than every one still running in
   * the database, so a slow transaction can never commit behind a cursor.
   */
  changeHead(): Promise<CallChangeCursor>;
}

// ---------------------------------------------------------------- objects (docs/spec/objects.md §2–3)

export interface ObjectStore {
  /**
   * Publishes a version (§2.5) atomically: a digest already live for the object becomes latest
   * again (`existing`, index and created_at kept); otherwise, unless live versions of the same
   * kind carry another base class (`collision`, nothing written), a new version gets the highest
   * index ever assigned to the object + 1 and becomes latest.
   */
  create(version: ObjectVersionInsert): Promise<ObjectCreateOutcome>;
  /**
   * The version a selector names (§2.6), deleted or not: `latest` is the live latest; an index
   * or digest prefers the live version, else the most recently deleted one; an alias resolves
   * through the object's aliases first. Null when nothing matches.
   */
  findVersion(
    projectId: string,
    objectId: string,
    selector: VersionSelector,
    opts?: { metadata_only?: boolean },
  ): Promise<ObjectVersionRow | null>;
  /** Live versions matching the query (§3.4), in its order, after offset and limit. */
  query(q: ObjectsQuery): Promise<ObjectVersionRow[]>;
  /**
   * Soft-deletes live versions (§3.3): those the selectors name (`latest`, index, digest), or every
   * live one when `selectors` is null. All or nothing: returns null, deleting nothing, when any
   * selector names no live version or nothing is live. Removes their tags and aliases and moves
   * latest to the surviving version with the greatest (created_at, version_index).
   * Returns the deleted versions by version_index.
   */
  delete(
    projectId: string,
    objectId: string,
    selectors: VersionSelector[] | null,
    deletedAt: number,
  ): Promise<ObjectVersionRow[] | null>;
  /** Tags and aliases per version, keyed `${object_id}:${digest}`; versions without any are absent. */
  labels(projectId: string, versions: Array<{ object_id: string; digest: string }>): Promise<Map<string, ObjectLabels>>;
  /** Adds tags (idempotent) to a live version given by content digest; false when no such live version. */
  addTags(projectId: string, objectId: string, digest: string, tags: string[], now: number): Promise<boolean>;
  /** Removes tags from a version; missing tags or versions are ignored. */
  removeTags(projectId: string, objectId: string, digest: string, tags: string[]): Promise<void>;
  /** Points each alias at the live version (moving it from another version); false when no such live version. */
  setAliases(projectId: string, objectId: string, digest: string, aliases: string[], now: number): Promise<boolean>;
  /** Removes aliases of the object; missing ones are ignored. */
  removeAliases(projectId: string, objectId: string, aliases: string[]): Promise<void>;
  /** Distinct tag names on live versions of the project, ascending. */
  listTags(projectId: string): Promise<string[]>;
  /** Distinct alias names of the project, ascending. */
  listAliases(projectId: string): Promise<string[]>;
}

// ---------------------------------------------------------------- files (docs/spec/objects.md §6)

/**
 * Content-addressed files, stored in chunks. An upload is staged chunk by chunk under an id the
 * caller chooses (before the digest is known), then committed under its digest or discarded.
 */
export interface FileStore {
  /** Stores chunk `seq` (0-based) of a staged upload. */
  stageChunk(projectId: string, uploadId: string, seq: number, data: Uint8Array): Promise<void>;
  /** Makes a staged upload the project's file for `digest`; when one exists already the staged chunks are dropped. */
  commitUpload(projectId: string, uploadId: string, file: Omit<FileRecord, 'project_id'>): Promise<FileCommitOutcome>;
  /** Drops a staged upload's chunks (upload failed or rejected). */
  discardUpload(projectId: string, uploadId: string): Promise<void>;
  /** The project's file with this digest, or null. */
  find(projectId: string, digest: string): Promise<FileRecord | null>;
  /**
   * The file's bytes chunk by chunk, reading one chunk at a time; empty when the file is unknown, an
   * ObjectNotFoundError when it is deleted while read or a chunk is missing.
   */
  readChunks(projectId: string, digest: string): AsyncIterable<Buffer>;
  /** Sum of the sizes of the project's distinct files (0 when none). */
  totalSize(projectId: string): Promise<number>;
}
