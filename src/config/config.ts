import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import path from 'node:path';
import type { CatalogFile } from '../schemas/inference-catalog.js';
import { ASSUMED_FD_LIMIT, connectionCapFor, openFileLimit } from './fd-limit.js';
import { loadCatalogFile } from './inference-catalog-file.js';
import { parseRedactionSettings, type RedactionSettings } from './redaction-config.js';

/**
 * The process configuration, read once from the environment. Nothing else reads process.env.
 */
const EnvSchema = Type.Object({
  HEDDLE_HOST: Type.String({ default: '127.0.0.1' }),
  HEDDLE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HEDDLE_DATA_DIR: Type.String({ default: './heddle-data' }),
  /** When set, this key exists with admin rights (every entity). */
  HEDDLE_ADMIN_KEY: Type.Optional(Type.String({ minLength: 20 })),
  /**
   * Whether a generated first admin key is printed as well as saved to `<data dir>/admin-key`.
   * The container image sets `false`: its stdout is a log that others may read (deploy/).
   */
  HEDDLE_PRINT_ADMIN_KEY: Type.Boolean({ default: true }),
  /** `postgres://…` selects the PostgreSQL store; unset means the embedded SQLite store. */
  HEDDLE_DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Comma-separated `postgres://…` URLs of streaming replicas that serve reads (docs/scaling.md). */
  HEDDLE_DATABASE_READ_URLS: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * How long `serve` and the CLI commands keep retrying a PostgreSQL server that is not up yet (refused, unresolvable,
   * starting up) before it gives up; 0 = fail at once. Compose and Kubernetes start a node and its
   * database together, so the deploy files set it (deploy/).
   */
  HEDDLE_DATABASE_WAIT_SECONDS: Type.Number({ minimum: 0, maximum: 3600, default: 0 }),
  /** Longest a read waits for a replica to replay the primary's position before the primary answers. */
  HEDDLE_READ_REPLICA_MAX_WAIT_MS: Type.Integer({ minimum: 0, default: 200 }),
  /** 32 MiB, the service-wide default body cap of the spec. */
  HEDDLE_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 32 * 1024 * 1024 }),
  /** Largest file `/file/create` accepts (streamed, so not bound by the body cap); 1 GiB. */
  HEDDLE_FILE_LIMIT_BYTES: Type.Integer({ minimum: 1, default: 1024 * 1024 * 1024 }),
  /**
   * How long an idle keep-alive connection stays open. Above the 60 s idle timeout of common load
   * balancers, so the balancer, not Heddle, closes a pooled connection (Fastify's default).
   */
  HEDDLE_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 72_000 }),
  /**
   * Time from a connection's first byte (or from its opening, when it sends none) to the end of the
   * request's headers; past it Heddle answers 408 and closes, so idle or trickling sockets cannot
   * pile up until the process runs out of file descriptors (issue 17).
   */
  HEDDLE_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 15_000 }),
  /**
   * Time to receive a whole request, body included: 408 past it (a body shorter than its
   * Content-Length ends here). Five minutes lets a 1 GiB file upload over a slow link finish.
   */
  HEDDLE_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 300_000 }),
  /**
   * Open client connections served at once; past it a new connection is answered 503 with
   * `Retry-After` (plugins/connection-limits.ts). Unset: derived from the process's open-file
   * limit, keeping a tenth of it (at least 256) for the database files and PostgreSQL
   * connections (config/fd-limit.ts): 768 under the usual 1,024, 18,000 under 20,000.
   */
  HEDDLE_MAX_CONNECTIONS: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * Connections the kernel holds for Heddle before it accepts them (the listen backlog; Linux caps
   * it at `net.core.somaxconn`, 4,096 by default). Node's own default, 511, overflows in a burst of
   * 2,000 connections: the kernel then drops the handshakes past it and those clients, health
   * probes among them, wait a 1 s retransmission or more (issue 35). Queued connections use no file
   * descriptor of the process.
   */
  HEDDLE_LISTEN_BACKLOG: Type.Integer({ minimum: 1, default: 4_096 }),
  /**
   * A second port, on HEDDLE_HOST, that answers only `GET /health` and `GET /version` (no key),
   * from a thread of its own: point load balancers and orchestrators' probes here, so a burst or a
   * slowloris on the API port cannot fail them (plugins/probe-port.ts). Unset: no probe port.
   */
  HEDDLE_PROBE_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  /** The probe port's /health answers 503 once the API's event loop has not run for this long. */
  HEDDLE_PROBE_STALL_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  /**
   * Requests this node handles at once (health routes aside); further ones answer 503 with
   * `Retry-After` before their body is read, so a flood costs a bounded amount of memory
   * (at most this many bodies of HEDDLE_BODY_LIMIT_BYTES). Below HEDDLE_MAX_CONNECTIONS by default
   * so an overloaded node still accepts connections to say so. docs/reliability-backpressure.md.
   */
  /** PII redaction on write (config/redaction-config.ts, docs/redaction.md): kinds for every project. */
  HEDDLE_REDACT: Type.Optional(Type.String()),
  /** JSON: entity or entity/project → kinds (the most specific wins). */
  HEDDLE_REDACT_SCOPES: Type.Optional(Type.String()),
  /** JSON: custom pattern name → regular expression. */
  HEDDLE_REDACT_PATTERNS: Type.Optional(Type.String()),
  HEDDLE_MAX_IN_FLIGHT: Type.Integer({ minimum: 1, default: 512 }),
  /**
   * Store operations waiting at once: writes queued for commit (the SQLite writer's queue, the
   * PostgreSQL call writer's) plus requests waiting for a database connection. Past it, writes and
   * new requests that may write answer 503 with `Retry-After` instead of queueing without end
   * while the database stalls.
   */
  HEDDLE_MAX_STORE_QUEUE: Type.Integer({ minimum: 1, default: 2_048 }),
  /**
   * Requests per second each API key may make (a token bucket per key, per node); 0 = no limit.
   * Off by default: a self-hosted node serves its own team, and back-pressure already protects it.
   */
  HEDDLE_RATE_LIMIT_PER_KEY: Type.Number({ minimum: 0, default: 0 }),
  /** Requests a key may make at once before the per-second rate applies; unset = twice the rate. */
  HEDDLE_RATE_LIMIT_BURST: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Oldest Python SDK allowed (server_info); "0.0.0" lets every client in. */
  HEDDLE_MIN_PYTHON_CLIENT_VERSION: Type.String({ default: '0.0.0' }),
  /** Public address of this server, reported to clients as `serverInfo.frontendHost`. */
  HEDDLE_PUBLIC_URL: Type.Optional(Type.String()),
  /** Key for `/image/create` (docs/spec/objects.md §6.4); unset means the endpoint answers "No OpenAI API key found". */
  OPENAI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** OpenAI-compatible API root the image endpoint calls (`<base>/images/generations`). */
  OPENAI_BASE_URL: Type.String({ default: 'https://api.openai.com/v1' }),
  /** Server-side evaluation (docs/spec/evaluations.md §6.3): OpenAI-compatible API root of the `openai/` provider. */
  HEDDLE_PROVIDER_OPENAI_BASE_URL: Type.String({ default: 'https://api.openai.com/v1' }),
  /** Key of the `openai/` provider; unset means its rows fail naming this variable. */
  HEDDLE_PROVIDER_OPENAI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Provider used for a bare model name (`gpt-4o-mini` → `openai/gpt-4o-mini`). */
  HEDDLE_PROVIDER_DEFAULT: Type.String({ default: 'openai' }),
  /** Model used when an `LLMStructuredCompletionModel` names none (`llm_model_id` empty). */
  HEDDLE_PROVIDER_DEFAULT_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  /** Per-request timeout of a provider call, so a hung provider fails the row instead of the run. */
  HEDDLE_PROVIDER_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 60_000 }),
  /** Retries after a 429/5xx or network error (exponential backoff, honouring Retry-After). */
  HEDDLE_PROVIDER_MAX_RETRIES: Type.Integer({ minimum: 0, maximum: 10, default: 3 }),
  /** Training (docs/spec/training.md §6): a queued job no trainer took within this many seconds fails. */
  HEDDLE_TRAINING_QUEUE_TIMEOUT_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 900 }),
  /** Lease of a running job; a holder that stops heartbeating loses the job after this. */
  HEDDLE_TRAINING_LEASE_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 60 }),
  /** How often every node sweeps expired leases and timed-out queued jobs. */
  HEDDLE_TRAINING_SWEEP_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 5 }),
  /** The built-in trainer also trains base models no live external worker serves. */
  HEDDLE_TRAINING_BUILTIN_FALLBACK: Type.Boolean({ default: true }),
  /** Whether this node runs the built-in trainer's job loop. */
  HEDDLE_TRAINING_BUILTIN_RUNNER: Type.Boolean({ default: true }),
  /** Built-in jobs this node runs at once (each in its own thread; jobs of one model never overlap). */
  HEDDLE_TRAINING_BUILTIN_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  /** An external worker counts as live this long after its last lease request. */
  HEDDLE_TRAINING_WORKER_TTL_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 60 }),
  /** Comma-separated allow-list of base models for new models (§4.1); unset = any. */
  HEDDLE_TRAINING_BASE_MODELS: Type.Optional(Type.String()),
  /** Background jobs (server-side evaluations, call scoring) this node runs at once; 0 = none (an API-only node). */
  HEDDLE_JOBS_CONCURRENCY: Type.Integer({ minimum: 0, maximum: 64, default: 1 }),
  /** Lease of a running background job; the runner heartbeats at a third of it, so a killed node's job is free after this. */
  HEDDLE_JOBS_LEASE_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 30 }),
  /** How often every node re-queues background jobs whose lease expired. */
  HEDDLE_JOBS_SWEEP_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 5 }),
  /** Leases a background job may take; a job whose last lease expires fails (its handlers resume, so retries are safe). */
  HEDDLE_JOBS_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 100, default: 3 }),
  /** How often a node looks for active monitors with calls not yet scanned, and a scan job for new calls (docs/monitors.md). */
  HEDDLE_MONITOR_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 250 }),
  /** The longest one monitor scan job keeps reading new calls (then it ends so other jobs get the runner; the next poll queues another). */
  HEDDLE_MONITOR_SCAN_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 10 }),
  /** Calls one monitor scan scores at once (each waits on its judge model). */
  HEDDLE_MONITOR_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
  /** Calls read per step of a monitor scan. */
  HEDDLE_MONITOR_BATCH: Type.Integer({ minimum: 1, maximum: 10_000, default: 200 }),
  /** Alerts (docs/alerts.md): each alert is evaluated this often, by one node at a time (2 s keeps a breach's notification within 5 s). */
  HEDDLE_ALERTS_INTERVAL_SECONDS: Type.Number({ minimum: 0.05, maximum: 86_400, default: 2 }),
  /** How often a node looks for alerts due for evaluation and notifications due for sending. */
  HEDDLE_ALERTS_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 500 }),
  /** An evaluation's or a send's lease: a node that stops mid-send has its notification sent again after this. */
  HEDDLE_ALERTS_LEASE_SECONDS: Type.Number({ minimum: 0.1, maximum: 3600, default: 30 }),
  /** The first retry of a failed notification waits this long; each further one twice as long (at most 5 min). */
  HEDDLE_ALERTS_RETRY_SECONDS: Type.Number({ minimum: 0.01, maximum: 300, default: 2 }),
  /** Attempts per notification before it is marked failed. */
  HEDDLE_ALERTS_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 100, default: 8 }),
  /** A webhook request not answered in this long counts as failed (and is retried). */
  HEDDLE_ALERTS_TIMEOUT_SECONDS: Type.Number({ minimum: 0.1, maximum: 300, default: 10 }),
  /** Retention (docs/export.md): a project's policy is applied this often (one job per run, on any node). */
  HEDDLE_RETENTION_INTERVAL_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 3600 }),
  /** How often every node looks for policies due a run; 0 = this node never schedules (others still may). */
  HEDDLE_RETENTION_CHECK_SECONDS: Type.Number({ minimum: 0, default: 60 }),
  /** `/v1/chat/completions` requests served at once per node; more wait in line. */
  HEDDLE_INFERENCE_CONCURRENCY: Type.Integer({ minimum: 1, default: 4 }),
  /** Requests that may wait for a slot; beyond that they get 429 (ART sends a step's rollouts at once). */
  HEDDLE_INFERENCE_QUEUE_LIMIT: Type.Integer({ minimum: 0, default: 256 }),
  /** JSON file with the inference catalogues (docs/spec/otel-service-queues.md §C); unset = empty lists. */
  HEDDLE_INFERENCE_CATALOG: Type.Optional(Type.String()),
  /** A request taking longer is logged at warn (the default level shows only failures and slow requests). */
  HEDDLE_LOG_SLOW_MS: Type.Integer({ minimum: 1, default: 1000 }),
  /** Seconds between one-line activity summaries (only when something happened); 0 turns them off. */
  HEDDLE_LOG_SUMMARY_SECONDS: Type.Number({ minimum: 0, default: 60 }),
  /** `auto`: human lines on a terminal, JSON lines otherwise. */
  HEDDLE_LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
    default: 'auto',
  }),
  /** Lifetime of a web UI browser session (`POST /auth/session`); 7 days. */
  HEDDLE_SESSION_TTL_SECONDS: Type.Integer({ minimum: 60, default: 7 * 24 * 3600 }),
  /** The built web app (`web/dist`, made by `npm run build` in `web/`); unset = the one in this checkout. */
  HEDDLE_WEB_DIR: Type.Optional(Type.String({ minLength: 1 })),
  HEDDLE_LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('silent'),
    ],
    { default: 'info' },
  ),
});

type Env = Static<typeof EnvSchema>;

/** Every variable the configuration reads (config/unknown-env.ts warns about other `HEDDLE_*` ones). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.properties);

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  adminKey?: string;
  printAdminKey: boolean;
  databaseUrl?: string;
  databaseWaitSeconds: number;
  databaseReadUrls: readonly string[];
  readReplicaMaxWaitMs: number;
  bodyLimitBytes: number;
  fileLimitBytes: number;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  listenBacklog: number;
  /** null: no probe port. */
  probePort: number | null;
  probeStallMs: number;
  /** The process's open-file limit (soft), or the assumed 1,024 when it cannot be read. */
  fdLimit: number;
  /** PII redaction on write (docs/redaction.md). */
  redaction: RedactionSettings;
  overload: OverloadSettings;
  /** Per-key rate limit; null = none. */
  rateLimit: RateLimitSettings | null;
  minPythonClientVersion: string;
  publicUrl?: string;
  logLevel: Env['HEDDLE_LOG_LEVEL'];
  logSlowMs: number;
  logSummarySeconds: number;
  logFormat: Env['HEDDLE_LOG_FORMAT'];
  openaiApiKey?: string;
  openaiBaseUrl: string;
  trainingQueueTimeoutSeconds: number;
  trainingLeaseSeconds: number;
  trainingSweepSeconds: number;
  trainingBuiltinFallback: boolean;
  trainingBuiltinRunner: boolean;
  trainingBuiltinConcurrency: number;
  trainingWorkerTtlSeconds: number;
  trainingBaseModels?: string[];
  inferenceConcurrency: number;
  inferenceQueueLimit: number;
  inferenceCatalog: CatalogFile;
  sessionTtlSeconds: number;
  /** Folder of the built web app; null = the checkout's `web/dist`. */
  webDir: string | null;
  providers: ProviderConfig;
  jobs: JobSettings;
  monitors: MonitorSettings;
  alerts: AlertSettings;
  retention: RetentionSettings;
}

/** Back-pressure bounds (docs/reliability-backpressure.md). */
export interface OverloadSettings {
  maxInFlight: number;
  maxStoreQueue: number;
}

/** A token bucket per API key: `perSecond` tokens a second, at most `burst` saved up. */
export interface RateLimitSettings {
  perSecond: number;
  burst: number;
}

/** Retention scheduling (docs/export.md "Retention"). */
export interface RetentionSettings {
  intervalSeconds: number;
  checkSeconds: number;
}

/** The background job queue on this node (docs/architecture.md, "Background jobs"). */
export interface JobSettings {
  concurrency: number;
  leaseSeconds: number;
  sweepSeconds: number;
  maxAttempts: number;
}

/** Online monitors (docs/monitors.md). */
export interface MonitorSettings {
  pollMs: number;
  scanSeconds: number;
  batch: number;
  concurrency: number;
}

/** Alerts (docs/alerts.md); times in seconds. */
export interface AlertSettings {
  intervalSeconds: number;
  pollMs: number;
  leaseSeconds: number;
  retrySeconds: number;
  maxAttempts: number;
  timeoutSeconds: number;
}

/** Server-side evaluation providers (docs/spec/evaluations.md §6.3). */
export interface ProviderConfig {
  openaiBaseUrl: string;
  openaiApiKey?: string;
  defaultProvider: string;
  defaultModel?: string;
  timeoutMs: number;
  maxRetries: number;
  /**
   * Secrets a `Provider` object's `api_key_name` may name: `HEDDLE_SECRET_<NAME>` holds the secret
   * called `<NAME>` (our choice; only variables with that prefix can be read, so an object cannot
   * name an arbitrary server variable such as the database URL).
   */
  secrets: Readonly<Record<string, string>>;
}

export const SECRET_ENV_PREFIX = 'HEDDLE_SECRET_';

function secretsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(SECRET_ENV_PREFIX) && key.length > SECRET_ENV_PREFIX.length && value)
      out[key.slice(SECRET_ENV_PREFIX.length)] = value;
  }
  return out;
}

export class ConfigError extends Error {}

/** Secrets are never echoed back in error messages. */
function shown(name: string, value: unknown): string {
  return /KEY|URL/.test(name) ? '(hidden)' : JSON.stringify(value);
}

/** TypeBox says "Expected union value" for the log level; name the allowed values instead. */
function describeError(schema: unknown, message: string): string {
  const anyOf = (schema as { anyOf?: Array<{ const?: unknown }> }).anyOf;
  if (anyOf && anyOf.every((s) => s.const !== undefined))
    return `expected one of ${anyOf.map((s) => String(s.const)).join(', ')}`;
  return message;
}

/** Parses the environment; reports every invalid variable at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, fdLimit = openFileLimit()): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw));
  const errors = [...Value.Errors(EnvSchema, converted)];
  if (errors.length > 0) {
    const lines = new Map<string, string>();
    for (const e of errors) {
      const name = e.path.slice(1) || '(env)';
      if (!lines.has(name)) lines.set(name, `${name}=${shown(name, env[name])}: ${describeError(e.schema, e.message)}`);
    }
    throw new ConfigError(`Invalid configuration:\n  ${[...lines.values()].join('\n  ')}`);
  }
  const parsed = converted as Env;
  let inferenceCatalog: CatalogFile;
  try {
    inferenceCatalog = loadCatalogFile(parsed.HEDDLE_INFERENCE_CATALOG);
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  HEDDLE_INFERENCE_CATALOG: ${(error as Error).message}`);
  }
  let redaction: RedactionSettings;
  try {
    redaction = parseRedactionSettings(
      parsed.HEDDLE_REDACT,
      parsed.HEDDLE_REDACT_SCOPES,
      parsed.HEDDLE_REDACT_PATTERNS,
    );
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  ${(error as Error).message}`);
  }
  if (parsed.HEDDLE_DATABASE_READ_URLS !== undefined && parsed.HEDDLE_DATABASE_URL === undefined)
    throw new ConfigError(
      'Invalid configuration:\n  HEDDLE_DATABASE_READ_URLS: replicas need a primary; set HEDDLE_DATABASE_URL too',
    );
  return Object.freeze({
    host: parsed.HEDDLE_HOST,
    port: parsed.HEDDLE_PORT,
    dataDir: path.resolve(parsed.HEDDLE_DATA_DIR),
    adminKey: parsed.HEDDLE_ADMIN_KEY,
    printAdminKey: parsed.HEDDLE_PRINT_ADMIN_KEY,
    databaseUrl: parsed.HEDDLE_DATABASE_URL,
    databaseWaitSeconds: parsed.HEDDLE_DATABASE_WAIT_SECONDS,
    databaseReadUrls: (parsed.HEDDLE_DATABASE_READ_URLS ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== ''),
    readReplicaMaxWaitMs: parsed.HEDDLE_READ_REPLICA_MAX_WAIT_MS,
    bodyLimitBytes: parsed.HEDDLE_BODY_LIMIT_BYTES,
    fileLimitBytes: parsed.HEDDLE_FILE_LIMIT_BYTES,
    keepAliveTimeoutMs: parsed.HEDDLE_KEEP_ALIVE_TIMEOUT_MS,
    // Node refuses a headers timeout above the request timeout
    headersTimeoutMs: Math.min(parsed.HEDDLE_HEADERS_TIMEOUT_MS, parsed.HEDDLE_REQUEST_TIMEOUT_MS),
    requestTimeoutMs: parsed.HEDDLE_REQUEST_TIMEOUT_MS,
    maxConnections: parsed.HEDDLE_MAX_CONNECTIONS ?? connectionCapFor(fdLimit),
    listenBacklog: parsed.HEDDLE_LISTEN_BACKLOG,
    probePort: parsed.HEDDLE_PROBE_PORT ?? null,
    probeStallMs: parsed.HEDDLE_PROBE_STALL_MS,
    fdLimit: fdLimit ?? ASSUMED_FD_LIMIT,
    redaction,
    overload: Object.freeze({ maxInFlight: parsed.HEDDLE_MAX_IN_FLIGHT, maxStoreQueue: parsed.HEDDLE_MAX_STORE_QUEUE }),
    rateLimit:
      parsed.HEDDLE_RATE_LIMIT_PER_KEY > 0
        ? Object.freeze({
            perSecond: parsed.HEDDLE_RATE_LIMIT_PER_KEY,
            burst: parsed.HEDDLE_RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(2 * parsed.HEDDLE_RATE_LIMIT_PER_KEY)),
          })
        : null,
    minPythonClientVersion: parsed.HEDDLE_MIN_PYTHON_CLIENT_VERSION,
    publicUrl: parsed.HEDDLE_PUBLIC_URL,
    logLevel: parsed.HEDDLE_LOG_LEVEL,
    logSlowMs: parsed.HEDDLE_LOG_SLOW_MS,
    logSummarySeconds: parsed.HEDDLE_LOG_SUMMARY_SECONDS,
    logFormat: parsed.HEDDLE_LOG_FORMAT,
    openaiApiKey: parsed.OPENAI_API_KEY,
    openaiBaseUrl: parsed.OPENAI_BASE_URL.replace(/\/+$/, ''),
    trainingQueueTimeoutSeconds: parsed.HEDDLE_TRAINING_QUEUE_TIMEOUT_SECONDS,
    trainingLeaseSeconds: parsed.HEDDLE_TRAINING_LEASE_SECONDS,
    trainingSweepSeconds: parsed.HEDDLE_TRAINING_SWEEP_SECONDS,
    trainingBuiltinFallback: parsed.HEDDLE_TRAINING_BUILTIN_FALLBACK,
    trainingBuiltinRunner: parsed.HEDDLE_TRAINING_BUILTIN_RUNNER,
    trainingBuiltinConcurrency: parsed.HEDDLE_TRAINING_BUILTIN_CONCURRENCY,
    trainingWorkerTtlSeconds: parsed.HEDDLE_TRAINING_WORKER_TTL_SECONDS,
    trainingBaseModels: parsed.HEDDLE_TRAINING_BASE_MODELS?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    inferenceConcurrency: parsed.HEDDLE_INFERENCE_CONCURRENCY,
    inferenceQueueLimit: parsed.HEDDLE_INFERENCE_QUEUE_LIMIT,
    inferenceCatalog,
    sessionTtlSeconds: parsed.HEDDLE_SESSION_TTL_SECONDS,
    webDir: parsed.HEDDLE_WEB_DIR ? path.resolve(parsed.HEDDLE_WEB_DIR) : null,
    providers: Object.freeze({
      openaiBaseUrl: parsed.HEDDLE_PROVIDER_OPENAI_BASE_URL.replace(/\/+$/, ''),
      openaiApiKey: parsed.HEDDLE_PROVIDER_OPENAI_API_KEY,
      defaultProvider: parsed.HEDDLE_PROVIDER_DEFAULT,
      defaultModel: parsed.HEDDLE_PROVIDER_DEFAULT_MODEL,
      timeoutMs: parsed.HEDDLE_PROVIDER_TIMEOUT_MS,
      maxRetries: parsed.HEDDLE_PROVIDER_MAX_RETRIES,
      secrets: Object.freeze(secretsOf(env)),
    }),
    jobs: Object.freeze({
      concurrency: parsed.HEDDLE_JOBS_CONCURRENCY,
      leaseSeconds: parsed.HEDDLE_JOBS_LEASE_SECONDS,
      sweepSeconds: parsed.HEDDLE_JOBS_SWEEP_SECONDS,
      maxAttempts: parsed.HEDDLE_JOBS_MAX_ATTEMPTS,
    }),
    monitors: Object.freeze({
      pollMs: parsed.HEDDLE_MONITOR_POLL_MS,
      scanSeconds: parsed.HEDDLE_MONITOR_SCAN_SECONDS,
      batch: parsed.HEDDLE_MONITOR_BATCH,
      concurrency: parsed.HEDDLE_MONITOR_CONCURRENCY,
    }),
    alerts: Object.freeze({
      intervalSeconds: parsed.HEDDLE_ALERTS_INTERVAL_SECONDS,
      pollMs: parsed.HEDDLE_ALERTS_POLL_MS,
      leaseSeconds: parsed.HEDDLE_ALERTS_LEASE_SECONDS,
      retrySeconds: parsed.HEDDLE_ALERTS_RETRY_SECONDS,
      maxAttempts: parsed.HEDDLE_ALERTS_MAX_ATTEMPTS,
      timeoutSeconds: parsed.HEDDLE_ALERTS_TIMEOUT_SECONDS,
    }),
    retention: Object.freeze({
      intervalSeconds: parsed.HEDDLE_RETENTION_INTERVAL_SECONDS,
      checkSeconds: parsed.HEDDLE_RETENTION_CHECK_SECONDS,
    }),
  });
}
