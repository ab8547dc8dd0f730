import pg from 'pg';
import {
  InsufficientStorageError,
  InvalidRequestError,
  QueryTimeoutError,
  StoreUnavailableError,
} from '../../errors/app-error.js';
import { diskFullCause, DiskState } from '../sql/disk-state.js';

/**
 * Connection-level helpers of the PostgreSQL store: how values come back from the server and how
 * its errors become the service's errors.
 */

const INT8_OID = 20;
const NUMERIC_OID = 1700;
const JSON_OID = 114;
const JSONB_OID = 3802;

const identity = (value: string): string => value;

/**
 * Result parsers: instants and counts are int8 (microseconds stay below 2^53, so a JS number is
 * exact), sums are numeric, and JSON stays text because the service splices stored JSON text into
 * responses without re-serialising it (domain/call-view.ts).
 */
export const PG_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
    if (oid === JSON_OID || oid === JSONB_OID) return identity;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

const STRING_OR_SEPARATOR = /("(?:[^"\\]|\\.)*")|([,:]) /g;

/**
 * JSONB prints `{"a": 1, "b": [1, 2]}`; SQLite keeps the compact text the service wrote. Dropping
 * the space after each separator outside strings gives the same compact form (keys stay in JSONB's
 * order: shorter keys first, then by bytes).
 */
export function compactJsonText(text: string): string;
export function compactJsonText(text: string | null): string | null;
export function compactJsonText(text: string | null): string | null {
  if (text === null || (!text.includes(', ') && !text.includes(': '))) return text;
  return text.replace(STRING_OR_SEPARATOR, (_match, str: string | undefined, sep: string | undefined) => str ?? sep!);
}

/** SQLSTATE classes and codes that say the database, not the request, is at fault for now. */
const UNAVAILABLE = /^(08|53|57P0[1-3]|58)/;
const QUERY_CANCELED = '57014';
/** Input the server cannot store: `\u0000` or a lone surrogate in JSON text, over-deep nesting. */
const UNSTORABLE_INPUT: Record<string, string> = {
  '22P05': 'The request contains text PostgreSQL cannot store (a \\u0000 character or an unpaired surrogate)',
  '22021': 'The request contains text PostgreSQL cannot store (invalid UTF-8)',
  '54001': 'The request nests JSON too deeply to store',
};

/** Maps a driver or server error to the service's errors; other errors pass through unchanged. */
export function mapPgError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    const unstorable = Object.hasOwn(UNSTORABLE_INPUT, code) ? UNSTORABLE_INPUT[code] : undefined;
    if (unstorable !== undefined) return new InvalidRequestError(unstorable);
    // the service hands the store valid JSON, so JSON the server refuses holds text it cannot store
    if (code === '22P02' && /type jsonb?\b/.test(error.message))
      return new InvalidRequestError(UNSTORABLE_INPUT['22P05']!);
    if (code === QUERY_CANCELED) return new QueryTimeoutError();
    // before the class-53 test below: a full disk is a 507 naming it, not a temporary 502
    const full = diskFullCause(error);
    if (full !== null) return new InsufficientStorageError(full);
    if (
      UNAVAILABLE.test(code) ||
      code === 'ECONNREFUSED' ||
      code === 'ECONNRESET' ||
      code === 'ENOTFOUND' ||
      code === 'ETIMEDOUT'
    ) {
      return new StoreUnavailableError(error);
    }
  }
  if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message)) {
    return new StoreUnavailableError(error);
  }
  return error;
}

/** The disk state of the store each pool belongs to (set by PostgresStore), so every write path reports to it. */
const DISK_STATES = new WeakMap<pg.Pool, DiskState>();

/** The disk state of a pool's store (one is made on first use). */
export function diskStateOf(pool: pg.Pool): DiskState {
  let state = DISK_STATES.get(pool);
  if (!state) {
    state = new DiskState();
    DISK_STATES.set(pool, state);
  }
  return state;
}

/** Runs `work`, rethrowing database errors as service errors. */
export async function mapErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapPgError(error);
  }
}

/** Deadlocks and serialization failures are worth one more try. */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * The shared compilers bind some values they end up not using (an operand compiled both as text
 * and as a number, say). PostgreSQL rejects a parameter it cannot type, so unused ones are
 * dropped and the placeholders renumbered. Placeholders only ever come from the dialect: user
 * values are always parameters, never SQL text, so `$<digits>` occurs nowhere else.
 */
export function compactParams(sql: string, params: readonly unknown[]): { text: string; values: unknown[] } {
  const renumbered = new Map<number, number>();
  const values: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_match, digits: string) => {
    const index = Number(digits);
    let next = renumbered.get(index);
    if (next === undefined) {
      values.push(params[index - 1]);
      next = values.length;
      renumbered.set(index, next);
    }
    return `$${next}`;
  });
  return { text, values };
}
