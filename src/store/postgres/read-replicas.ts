import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads served by PostgreSQL streaming replicas (docs/scaling.md, "Read replicas"). A read goes to
 * a replica only once that replica has replayed the primary's WAL up to where it stood when the read
 * began, so it sees every write acknowledged before it, through any node: a client never misses its
 * own write. A replica that has not caught up within the wait bound, or cannot be reached, is
 * passed over and the primary answers; an unreachable one is left alone for a while.
 */

/** What the stores need of a pool for reads: a pg.Pool, or the router's pick among replicas. */
export interface ReadPool {
  connect(): Promise<pg.PoolClient>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface ReplicaSettings {
  /** Connection strings of the replicas. */
  urls: readonly string[];
  /** Longest a read waits for a replica to catch up before the primary answers it. */
  maxWaitMs: number;
  /** How long an unreachable replica is left alone. */
  retryAfterMs: number;
  /** Pool settings shared with the primary's pools (types, application name, timeouts). */
  base: pg.PoolConfig;
  /** Connections per replica, for short reads and for streams each. */
  maxConnections: number;
  maxStreamConnections: number;
}

/** Reads served per target since start, for /health and the tests. */
export interface ReadCounters {
  primary: number;
  replicas: Array<{ url: string; reads: number; behind: number; unreachable: number }>;
}

interface Replica {
  url: string;
  short: pg.Pool;
  stream: pg.Pool;
  downUntil: number;
  reads: number;
  behind: number;
  unreachable: number;
}

const POLL_MS = 2;

export class ReadRouter {
  readonly short: ReadPool;
  readonly stream: ReadPool;
  readonly #replicas: Replica[];
  #next = 0;
  #primaryReads = 0;

  constructor(
    private readonly primary: pg.Pool,
    primaryStream: pg.Pool,
    private readonly settings: ReplicaSettings,
  ) {
    this.#replicas = settings.urls.map((url) => {
      const base = { ...settings.base, connectionString: url };
      const replica: Replica = {
        url,
        short: new pg.Pool({ ...base, max: settings.maxConnections }),
        stream: new pg.Pool({ ...base, max: settings.maxStreamConnections }),
        downUntil: 0,
        reads: 0,
        behind: 0,
        unreachable: 0,
      };
      for (const pool of [replica.short, replica.stream]) {
        pool.on('error', () => undefined);
        pool.on('connect', (client) => client.on('error', () => undefined));
      }
      return replica;
    });
    this.short = this.#pool(primary, (r) => r.short);
    this.stream = this.#pool(primaryStream, (r) => r.stream);
  }

  counters(): ReadCounters {
    return {
      primary: this.#primaryReads,
      replicas: this.#replicas.map(({ url, reads, behind, unreachable }) => ({
        url: redact(url),
        reads,
        behind,
        unreachable,
      })),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#replicas.flatMap((r) => [r.short.end(), r.stream.end()]));
  }

  #pool(fallback: pg.Pool, poolOf: (r: Replica) => pg.Pool): ReadPool {
    const connect = (): Promise<pg.PoolClient> => this.#connect(fallback, poolOf);
    return {
      connect,
      query: async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
        const client = await connect();
        let failure: Error | undefined;
        try {
          return await client.query<R>(text, values);
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
          throw error;
        } finally {
          // a connection whose query failed may be broken: dropped rather than reused
          client.release(failure !== undefined && !isQueryError(failure) ? failure : undefined);
        }
      },
    };
  }

  async #connect(fallback: pg.Pool, poolOf: (r: Replica) => pg.Pool): Promise<pg.PoolClient> {
    const replica = this.#pick();
    if (replica === null) return this.#onPrimary(fallback);
    const started = Date.now();
    // where the primary stands now: every write acknowledged before this read is at or below it
    const target = lsnValue(
      (await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn,
    );
    let client: pg.PoolClient;
    try {
      client = await poolOf(replica).connect();
    } catch {
      replica.unreachable += 1;
      replica.downUntil = Date.now() + this.settings.retryAfterMs;
      return this.#onPrimary(fallback);
    }
    try {
      for (;;) {
        const { rows } = await client.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
        const replayed = rows[0]?.lsn;
        if (replayed != null && lsnValue(replayed) >= target) {
          replica.reads += 1;
          return client;
        }
        if (Date.now() - started >= this.settings.maxWaitMs) break;
        await sleep(POLL_MS);
      }
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
      replica.unreachable += 1;
      replica.downUntil = Date.now() + this.settings.retryAfterMs;
      return this.#onPrimary(fallback);
    }
    client.release();
    replica.behind += 1;
    return this.#onPrimary(fallback);
  }

  #onPrimary(pool: pg.Pool): Promise<pg.PoolClient> {
    this.#primaryReads += 1;
    return pool.connect();
  }

  /** The next replica in turn that is not resting after a failure, or null. */
  #pick(): Replica | null {
    const now = Date.now();
    for (let i = 0; i < this.#replicas.length; i += 1) {
      const replica = this.#replicas[(this.#next + i) % this.#replicas.length]!;
      if (replica.downUntil > now) continue;
      this.#next = (this.#next + i + 1) % this.#replicas.length;
      return replica;
    }
    return null;
  }
}

/** An LSN such as `16/B374D848` as one comparable number. */
export function lsnValue(lsn: string): bigint {
  const [high = '0', low = '0'] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** A query the server refused (bad SQL, a constraint) leaves the connection usable; anything else may not. */
function isQueryError(error: Error): boolean {
  return typeof (error as { code?: unknown }).code === 'string' && 'severity' in error;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'replica';
  }
}
