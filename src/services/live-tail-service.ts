import { Type, type Static } from '@sinclair/typebox';
import { callToJson, type CallViewOptions } from '../domain/call-view.js';
import { InvalidRequestError } from '../errors/app-error.js';
import { createAjv } from '../schemas/ajv.js';
import { CallsFilter } from '../schemas/calls.js';
import { Nullable } from '../schemas/common.js';
import { Operand, Query } from '../schemas/query.js';
import type { CallChangeCursor, CallsQuery, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { checkFilter, compileWhere } from './call-query-service.js';
import type { ProjectAccess } from './project-access.js';

/** Most calls one poll sends; a longer backlog is sent over the following polls at once. */
export const LIVE_TAIL_BATCH = 500;

/** The filter and query of `/calls/live_tail`, once their JSON text is parsed. */
const TailSelection = Type.Object({ filter: Nullable(CallsFilter), query: Nullable(Query) });
type TailSelection = Static<typeof TailSelection>;
const checkSelection = createAjv([Operand]).compile(TailSelection);

export interface LiveTailRequest {
  project_id: string;
  filter?: string;
  query?: string;
}

export interface TailEvent {
  /** The SSE `id:` (a cursor; `Last-Event-ID` resumes after it). */
  id: string;
  /** The call as `/calls/stream_query` renders it. */
  data: string;
}

/** `<change_seq>.<base64url call id>`: the id goes in an SSE line, so it may hold no line breaks. */
export function formatCursor(cursor: CallChangeCursor): string {
  return `${cursor.seq}.${Buffer.from(cursor.id, 'utf8').toString('base64url')}`;
}

export function parseCursor(text: string): CallChangeCursor {
  const match = /^(\d{1,16})\.([A-Za-z0-9_-]*)$/.exec(text.trim());
  if (!match) throw new InvalidRequestError(`Invalid Last-Event-ID "${text.slice(0, 64)}"`);
  return { seq: Number(match[1]), id: Buffer.from(match[2] ?? '', 'base64url').toString('utf8') };
}

function parseJsonParam(name: string, text: string | undefined): unknown {
  if (text === undefined || text === '') return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidRequestError(`Invalid ${name}: not JSON (${(error as Error).message})`);
  }
}

/** Most rows of the opening window remembered as already written (see LiveTailService.open). */
const OPENING_WINDOW_LIMIT = 10_000;

const changeKey = (seq: number, id: string): string => `${seq} ${id}`;

/** One open tail: polls the store for calls written after its cursor. */
export class LiveTail {
  readonly #view: CallViewOptions = { columns: null, includeStorageSize: false, includeTotalStorageSize: false };

  constructor(
    private readonly store: TraceStore,
    private readonly base: CallsQuery,
    private cursor: CallChangeCursor,
    /** Writes past the cursor that were already committed when the tail opened: not news. */
    private readonly alreadyWritten: ReadonlySet<string> = new Set(),
  ) {}

  /** Calls written after the cursor that match, in write order (at most LIVE_TAIL_BATCH); advances the cursor. */
  async poll(): Promise<TailEvent[]> {
    const events: TailEvent[] = [];
    const rows = this.store.calls.query({ ...this.base, changed_after: this.cursor, limit: LIVE_TAIL_BATCH });
    for await (const row of rows) {
      this.cursor = { seq: Number(row.change_seq), id: row.id };
      if (this.alreadyWritten.has(changeKey(this.cursor.seq, row.id))) continue;
      events.push({ id: formatCursor(this.cursor), data: callToJson(row, this.#view) });
    }
    return events;
  }
}

/**
 * `GET /calls/live_tail`: validates the request (tenancy, filter and query) before any byte of the
 * stream is sent, and opens the tail at `Last-Event-ID` or at the store's present write position.
 */
export class LiveTailService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  async open(caller: Caller, req: LiveTailRequest, lastEventId: string | undefined): Promise<LiveTail> {
    this.access.assertCanRead(caller, req.project_id);
    const selection = {
      filter: parseJsonParam('filter', req.filter),
      query: parseJsonParam('query', req.query),
    };
    if (!checkSelection(selection)) {
      const error = checkSelection.errors?.[0];
      const where = error ? `${error.instancePath.slice(1).replace(/\//g, '.') || 'value'} ` : '';
      throw new InvalidRequestError(
        `Invalid filter or query: ${where}${error?.message ?? 'does not match the schema'}`,
      );
    }
    const { filter, query } = selection as TailSelection;
    const base: CallsQuery = {
      project_id: req.project_id,
      filter: checkFilter(filter),
      where: compileWhere(query),
    };
    if (lastEventId) {
      const cursor = parseCursor(lastEventId);
      // compiled (and not run) now, so a query the store cannot use fails with a status, not mid-stream
      this.store.calls.query({ ...base, changed_after: cursor, limit: 1 });
      return new LiveTail(this.store, base, cursor);
    }
    // The head may lag behind writes already committed: on PostgreSQL it stops below any transaction
    // still running anywhere, so a late commit is never skipped. Rows past it that are already
    // visible now are remembered and not sent as new.
    const head = await this.store.calls.changeHead();
    const alreadyWritten = new Set<string>();
    for await (const row of this.store.calls.query({
      ...base,
      changed_after: head,
      include_uncertain_changes: true,
      limit: OPENING_WINDOW_LIMIT,
    })) {
      alreadyWritten.add(changeKey(Number(row.change_seq), row.id));
    }
    return new LiveTail(this.store, base, head, alreadyWritten);
  }
}
