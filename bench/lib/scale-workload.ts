import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CALLS_PER_TRACE, makeCalls, opRefs, type GenCall } from './workload.js';

/**
 * The traces-table workload of the query-scale issue (bench/query-scale.ts, bench/busy-ingest.ts):
 * `total` calls of about 1 KB in one project, with an input, an output and an attribute field to
 * filter on, a substring to find and one error in ERROR_EVERY calls, and the probes (first page of
 * 100 or a count) with their goals and the answers they must give.
 */
export interface Probe {
  name: string;
  goal1m: number;
  goal10m: number;
  path: '/calls/stream_query' | '/calls/query_stats';
  body: Record<string, unknown>;
  /** Lines (stream_query) or the count (query_stats) the answer must have. */
  expect: number;
}

export type Expected = ReturnType<ReturnType<typeof scaleWorkload>['expected']>;

/** The calls of `project`, `total` in all, and the probes over them. */
export function scaleWorkload(project: string, total: number) {
  /** One user in this many calls: the probed user has ≈55 calls at any size, as in the issue. */
  const USERS = Math.max(1, Math.round(total / 55));
  const PROBE_USER = `user-${4374 % USERS}`;
  const CONTAINS = `r-${4374 % USERS}`;
  const PROBE_TICKET = `ticket-${4374 % USERS}`;

  /** One call in this many ends with an exception (status "error"): ≈100 at 100,000 calls. */
  const ERROR_EVERY = 997;

  /** The user of call `i`: a stride through the users, so each holds total / USERS calls spread over the project's time. */
  const userOf = (i: number): string => `user-${(i * 7919) % USERS}`;
  /** The ticket in the output of call `i`, another stride. */
  const ticketOf = (i: number): string => `ticket-${(i * 7727) % USERS}`;
  /** Whether call `i` has an object output (the workload's retrieval step, second of each trace, outputs a list). */
  const objectOutput = (i: number): boolean => i % CALLS_PER_TRACE !== 1;

  /** Every chunk of the seeded project, generated on demand (the same calls for both stores). */
  function* chunks(chunkCalls = 10_000, from = 0, to = total): Generator<{ calls: GenCall[]; first: number }> {
    const ops = opRefs(project, 3);
    const traces = Math.ceil(total / CALLS_PER_TRACE);
    const spacing = Math.floor((30 * 86_400 * 1e6) / traces);
    const t0 = Date.UTC(2025, 4, 1) * 1000;
    for (let written = from; written < to; written += chunkCalls) {
      const n = Math.min(chunkCalls, to - written);
      const start = t0 + (written / CALLS_PER_TRACE) * spacing;
      const calls = makeCalls(project, ops, n, start, spacing, {
        rareEvery: 200,
        firstTrace: written / CALLS_PER_TRACE,
      });
      calls.forEach((c, k) => {
        c.start.inputs = { user_id: userOf(written + k), ...c.start.inputs };
        c.start.attributes = { ...c.start.attributes, user_id: userOf(written + k) };
        const output = c.end.output;
        const isObject = typeof output === 'object' && output !== null && !Array.isArray(output);
        if (isObject !== objectOutput(written + k))
          throw new Error('the workload changed its outputs: fix objectOutput');
        if (isObject) c.end.output = { ...output, ticket: ticketOf(written + k) };
        if ((written + k) % ERROR_EVERY === 0) c.end.exception = 'bench error';
      });
      yield { calls, first: written };
    }
  }

  /** What each probe must return, counted over the generated users. */
  function expected(): { eq: number; ticket: number; contains: number; roots: number; errors: number } {
    let eq = 0;
    let ticket = 0;
    let contains = 0;
    for (let i = 0; i < total; i += 1) {
      const user = userOf(i);
      if (user === PROBE_USER) eq += 1;
      if (objectOutput(i) && ticketOf(i) === PROBE_TICKET) ticket += 1;
      if (user.includes(CONTAINS)) contains += 1;
    }
    return { eq, ticket, contains, roots: Math.ceil(total / CALLS_PER_TRACE), errors: Math.ceil(total / ERROR_EVERY) };
  }

  function probes(want: ReturnType<typeof expected>): Probe[] {
    const newest = [{ field: 'started_at', direction: 'desc' }];
    const equal = (field: string, value: string) => ({ $expr: { $eq: [{ $getField: field }, { $literal: value }] } });
    const eq = equal('inputs.user_id', PROBE_USER);
    const contains = {
      $expr: { $contains: { input: { $getField: 'inputs.user_id' }, substr: { $literal: CONTAINS } } },
    };
    // the traces page's search box: the text anywhere in inputs or output, case-insensitive
    const search = {
      $expr: {
        $or: ['inputs', 'output'].map((column) => ({
          $contains: {
            input: { $getField: column },
            substr: { $literal: CONTAINS.toUpperCase() },
            case_insensitive: true,
          },
        })),
      },
    };
    const isError = { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] } };
    const page = (n: number): number => Math.min(100, n);
    /** The first page, newest first, of `field == value`, which `matches` calls hold. */
    const fieldFilter = (kind: string, field: string, value: string, matches: number): Probe => ({
      name: `filter on one ${kind} field (${field} == "${value}", ${matches} matches)`,
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: { project_id: project, query: equal(field, value), sort_by: newest, limit: 100 },
      expect: page(matches),
    });
    return [
      fieldFilter('input', 'inputs.user_id', PROBE_USER, want.eq),
      {
        name: 'count of that filter (/calls/query_stats)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/query_stats',
        body: { project_id: project, query: eq },
        expect: want.eq,
      },
      fieldFilter('output', 'output.ticket', PROBE_TICKET, want.ticket),
      fieldFilter('attribute', 'attributes.user_id', PROBE_USER, want.eq),
      {
        name: 'sort by latency (summary.weave.latency_ms desc)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: { project_id: project, sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }], limit: 100 },
        expect: 100,
      },
      {
        // a root spans its children: ascending, the roots come after nearly every child (migration 028)
        name: 'sort by latency asc, roots only (the traces page)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: {
          project_id: project,
          filter: { trace_roots_only: true },
          sort_by: [{ field: 'summary.weave.latency_ms', direction: 'asc' }],
          limit: 100,
        },
        expect: 100,
      },
      {
        name: 'count of all calls of the project',
        goal1m: 20,
        goal10m: 50,
        path: '/calls/query_stats',
        body: { project_id: project },
        expect: total,
      },
      {
        name: `substring of an input ($contains "${CONTAINS}", ${want.contains} matches)`,
        goal1m: 100,
        goal10m: 300,
        path: '/calls/stream_query',
        body: { project_id: project, query: contains, sort_by: newest, limit: 100 },
        expect: page(want.contains),
      },
      {
        name: 'root calls, newest first',
        goal1m: 20,
        goal10m: 50,
        path: '/calls/stream_query',
        body: { project_id: project, filter: { trace_roots_only: true }, sort_by: newest, limit: 100 },
        expect: 100,
      },
      {
        name: `search box: "${CONTAINS.toUpperCase()}" anywhere in inputs or output ($or of two $contains, ${want.contains} matches)`,
        goal1m: 100,
        goal10m: 300,
        path: '/calls/stream_query',
        body: { project_id: project, query: search, sort_by: newest, limit: 100 },
        expect: page(want.contains),
      },
      {
        name: 'count of that search (/calls/query_stats)',
        goal1m: 100,
        goal10m: 300,
        path: '/calls/query_stats',
        body: { project_id: project, query: search },
        expect: want.contains,
      },
      {
        name: `status filter, newest first (summary.weave.status == "error", ${want.errors} matches)`,
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: { project_id: project, query: isError, sort_by: newest, limit: 100 },
        expect: page(want.errors),
      },
      {
        name: 'sort by status (summary.weave.status asc)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: { project_id: project, sort_by: [{ field: 'summary.weave.status', direction: 'asc' }], limit: 100 },
        expect: 100,
      },
      {
        name: 'sort by op name (op_name asc)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: { project_id: project, sort_by: [{ field: 'op_name', direction: 'asc' }], limit: 100 },
        expect: 100,
      },
      {
        name: 'sort by display name (display_name asc)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: { project_id: project, sort_by: [{ field: 'display_name', direction: 'asc' }], limit: 100 },
        expect: 100,
      },
      ...tokenSorts(),
      {
        name: 'sort by display name, roots only (the traces page)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query',
        body: {
          project_id: project,
          filter: { trace_roots_only: true },
          sort_by: [{ field: 'display_name', direction: 'asc' }],
          limit: 100,
        },
        expect: 100,
      },
      ...traceNameSorts(),
      {
        name: 'count of the status filter, capped at 10,000 (/calls/query_stats, limit 10000)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/query_stats',
        body: { project_id: project, query: isError, limit: 10_000 },
        // the count is capped at the limit (docs/spec/calls.md, /calls/query_stats `count`)
        expect: Math.min(want.errors, 10_000),
      },
    ];
  }

  /**
   * Sorts by the token total (the traces table's Tokens column): along `call_tokens`, and the plain
   * plan; and by cost (the Cost column), along `call_cost` (written by the indexer, which the seed waits for).
   */
  function tokenSorts(): Probe[] {
    const tokens = (direction: 'asc' | 'desc') => ({ field: 'summary.weave.total_tokens', direction });
    return [
      ...(['desc', 'asc'] as const).map((direction) => ({
        name: `sort by tokens (summary.weave.total_tokens ${direction})`,
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query' as const,
        body: { project_id: project, sort_by: [tokens(direction)], limit: 100 },
        expect: 100,
      })),
      {
        name: 'sort by tokens desc, then started_at: the plain plan, no index',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query' as const,
        body: {
          project_id: project,
          sort_by: [tokens('desc'), { field: 'started_at', direction: 'desc' }],
          limit: 100,
        },
        expect: 100,
      },
      {
        name: 'sort by cost (summary.weave.total_cost desc)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query' as const,
        body: { project_id: project, sort_by: [{ field: 'summary.weave.total_cost', direction: 'desc' }], limit: 100 },
        expect: 100,
      },
      // the traces page's default filter; the workload's roots have no usage, so every root is NULL
      ...(['summary.weave.total_tokens', 'summary.weave.total_cost'] as const).map((field) => ({
        name: `sort by ${field.slice('summary.weave.'.length)} desc, roots only (the traces page)`,
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query' as const,
        body: {
          project_id: project,
          filter: { trace_roots_only: true },
          sort_by: [{ field, direction: 'desc' }],
          limit: 100,
        },
        expect: 100,
      })),
    ];
  }

  /**
   * Sorts by the trace name (the traces table's Name column, `summary.weave.trace_name`), along
   * `call_trace_names` (migration 026): the display name, NULL in this workload, falls back to the op's
   * display name, so the names have many ties (ordered by id).
   */
  function traceNameSorts(): Probe[] {
    const byName = [{ field: 'summary.weave.trace_name', direction: 'desc' }];
    return [
      {
        name: 'sort by trace name (summary.weave.trace_name desc)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query' as const,
        body: { project_id: project, sort_by: byName, limit: 100 },
        expect: 100,
      },
      {
        name: 'sort by trace name desc, roots only (the traces page)',
        goal1m: 50,
        goal10m: 100,
        path: '/calls/stream_query' as const,
        body: { project_id: project, filter: { trace_roots_only: true }, sort_by: byName, limit: 100 },
        expect: 100,
      },
    ];
  }
  return { chunks, expected, probes, probeUser: PROBE_USER, contains: CONTAINS };
}

/** A new database on the server at `adminUrl`, migrated; `drop` removes it. */
export async function freshPostgres(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `heddle_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const { PostgresStore } = await import('../../src/store/postgres/postgres-store.js');
  const migrating = new PostgresStore({ url: url.toString() });
  await migrating.migrate();
  await migrating.close();
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
