import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { RouteInfo } from '../../src/plugins/route-table.js';

/**
 * One entry per registered route (key `"METHOD /url-pattern"`, exactly as Fastify registered it).
 * The security tests walk `app.routeTable` and FAIL for any route that has no entry here, so a new
 * route cannot skip the auth and tenancy checks by being forgotten.
 *
 * - `request(projectId)`: a minimal request that is VALID for the route's schema and names the
 *   project `projectId` ("entity/project") wherever the route takes one. The tenancy test sends it
 *   for a project of an entity the caller does not belong to and expects 403; the owner of that
 *   entity must get a non-error answer (2xx or 404) with the same request.
 * - `noProject`: the route touches no project (service information); say why.
 */
/** A request to send: a JSON `body`, or a `raw` payload of another content type (multipart uploads). */
export interface CaseRequest {
  url: string;
  body?: unknown;
  raw?: { contentType: string; payload: string };
  /** The answer is a Server-Sent Events stream: read until its first bytes, then hang up (inject.ts). */
  eventStream?: boolean;
}

export interface RouteCase {
  request?: (projectId: string) => CaseRequest;
  /** The project is (also) named in the path, so a malformed id cannot be expressed. */
  projectInPath?: boolean;
  noProject?: string;
  /**
   * For routes whose protocol does not refuse with 403 (GraphQL answers 200 with `errors`): true
   * when `res` is that protocol's refusal; `allowed` checks the owner's answer likewise.
   */
  refused?: (res: LightMyRequestResponse) => boolean;
  allowed?: (res: LightMyRequestResponse) => boolean;
  /** A richer valid body for the fuzz test to mutate (default: `request`'s). */
  fuzzBody?: (projectId: string) => unknown;
  /** The route answers errors in its protocol's shape instead of `reason`/`detail`. */
  errorShape?: 'graphql' | 'jsonrpc';
}

const T0 = '2025-01-01T10:00:00Z';

function startReq(projectId: string): Record<string, unknown> {
  return {
    start: {
      project_id: projectId,
      id: 'sec-call',
      trace_id: 'sec-trace',
      op_name: 'op',
      started_at: T0,
      attributes: {},
      inputs: {},
    },
  };
}

function endReq(projectId: string): Record<string, unknown> {
  return { end: { project_id: projectId, id: 'sec-call', ended_at: T0, summary: {} } };
}

const post = (url: string, body: (p: string) => unknown, fuzzBody?: (p: string) => unknown): RouteCase => ({
  request: (p) => ({ url, body: body(p) }),
  fuzzBody,
});

const put = (url: string, body: (p: string) => unknown): RouteCase => ({ request: (p) => ({ url, body: body(p) }) });

/** `/projects/{entity}/{project}` with each part escaped. */
const projectUrl = (p: string): string => `/projects/${p.split('/').map(encodeURIComponent).join('/')}`;

/** A `/v2/{entity}/{project}/…` route; the body names the same project. */
const inPath = (rest: string, body: (p: string) => unknown): RouteCase => ({
  request: (p) => ({ url: `/v2/${p.split('/').map(encodeURIComponent).join('/')}/${rest}`, body: body(p) }),
  projectInPath: true,
});

/** A bodiless `/v2/{entity}/{project}/…` request (list, read, delete). */
const inPathNoBody = (rest: string): RouteCase => ({
  request: (p) => ({ url: `/v2/${p.split('/').map(encodeURIComponent).join('/')}/${rest}` }),
  projectInPath: true,
});

/** Minimal create bodies of the v2 object families (docs/spec/evaluations.md §2); v2 bodies never name the project. */
const V2_OBJECT_BODIES: Record<string, unknown> = {
  ops: { name: 'sec-op', source_code: 'def f():\n    return 1\n' },
  datasets: { name: 'sec-data', rows: [{ a: 1 }] },
  scorers: { name: 'sec-scorer', op_source_code: 'def score(output):\n    return True\n' },
  models: { name: 'sec-model', source_code: 'class M:\n    pass\n', attributes: { temperature: 0.5 } },
  evaluations: { name: 'sec-eval', dataset: 'weave:///acme/demo/object/sec-data:abc', trials: 2 },
};

/** The four routes of each v2 object family; reading or deleting the unknown `sec-x` gives the owner 404. */
function v2ObjectCases(): Record<string, RouteCase> {
  const cases: Record<string, RouteCase> = {};
  for (const [family, body] of Object.entries(V2_OBJECT_BODIES)) {
    cases[`POST /v2/:entity/:project/${family}`] = inPath(family, () => body);
    cases[`GET /v2/:entity/:project/${family}`] = inPathNoBody(`${family}?limit=5`);
    cases[`GET /v2/:entity/:project/${family}/:object_id/versions/:digest`] = inPathNoBody(
      `${family}/sec-x/versions/latest`,
    );
    cases[`DELETE /v2/:entity/:project/${family}/:object_id`] = inPathNoBody(`${family}/sec-x`);
  }
  return cases;
}

/** Evaluation runs, predictions, scores and eval results (docs/spec/evaluations.md §3–§4); unknown ids give the owner 404. */
function evaluationCallCases(): Record<string, RouteCase> {
  const model = 'weave:///acme/demo/object/sec-model:abc';
  const missing = '0195a1c2-0000-7000-8000-000000000000';
  return {
    'POST /v2/:entity/:project/evaluation_runs': inPath('evaluation_runs', () => ({ evaluation: 'e', model })),
    'GET /v2/:entity/:project/evaluation_runs': inPathNoBody('evaluation_runs?limit=5'),
    'GET /v2/:entity/:project/evaluation_runs/:evaluation_run_id': inPathNoBody(`evaluation_runs/${missing}`),
    'DELETE /v2/:entity/:project/evaluation_runs': inPathNoBody(`evaluation_runs?evaluation_run_ids=${missing}`),
    'POST /v2/:entity/:project/evaluation_runs/:evaluation_run_id/finish': inPath(
      `evaluation_runs/${missing}/finish`,
      () => ({}),
    ),
    'POST /v2/:entity/:project/predictions': inPath('predictions', () => ({ model, inputs: {}, output: 1 })),
    'GET /v2/:entity/:project/predictions': inPathNoBody('predictions?limit=5'),
    'GET /v2/:entity/:project/predictions/:prediction_id': inPathNoBody(`predictions/${missing}`),
    'DELETE /v2/:entity/:project/predictions': inPathNoBody(`predictions?prediction_ids=${missing}`),
    'POST /v2/:entity/:project/predictions/:prediction_id/finish': inPath(`predictions/${missing}/finish`, () => ({})),
    'POST /v2/:entity/:project/scores': inPath('scores', () => ({
      prediction_id: missing,
      scorer: 'weave:///acme/demo/object/sec-scorer:abc',
      value: 1,
    })),
    'GET /v2/:entity/:project/scores': inPathNoBody('scores?limit=5'),
    'GET /v2/:entity/:project/scores/:score_id': inPathNoBody(`scores/${missing}`),
    'DELETE /v2/:entity/:project/scores': inPathNoBody(`scores?score_ids=${missing}`),
    'POST /v2/:entity/:project/eval_results/query': inPath('eval_results/query', () => ({
      evaluation_call_ids: [missing],
      include_summary: true,
    })),
    // server-side evaluation status (§6.4): an unknown call is a 200 `not_found` for the owner
    'POST /evaluations/status': post('/evaluations/status', (p) => ({ project_id: p, call_id: missing })),
    // §6.1: checked before enqueueing, so the owner gets a 404 for an evaluation that does not exist
    'POST /evaluations/evaluate_model': post('/evaluations/evaluate_model', (p) => ({
      project_id: p,
      evaluation_ref: `weave:///${p}/object/no-such-eval:latest`,
      model_ref: `weave:///${p}/object/no-such-model:latest`,
    })),
    // §5: no calls, so the owner's request enqueues nothing
    'POST /calls/score': post('/calls/score', (p) => ({
      project_id: p,
      call_ids: [],
      scorer_refs: [`weave:///${p}/object/sec-scorer:latest`],
    })),
  };
}

/** A `/file/create` form: `project_id` and a small `file`. */
function multipartUpload(projectId: string): { contentType: string; payload: string } {
  const boundary = 'heddle-security-boundary';
  const payload = [
    `--${boundary}\r\nContent-Disposition: form-data; name="project_id"\r\n\r\n${projectId}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  return { contentType: `multipart/form-data; boundary=${boundary}`, payload };
}

/** A note on the security test call (docs/spec/objects.md §7.1). */
function feedbackReq(projectId: string): Record<string, unknown> {
  return {
    project_id: projectId,
    weave_ref: `weave:///${projectId}/call/sec-call`,
    feedback_type: 'wandb.note.1',
    payload: { note: 'n' },
  };
}

/** The only query shape purges accept (docs/spec/objects.md §7.6, §8.4). */
const ID_QUERY = { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'sec-id' }] } };

/** A query using every operator of docs/spec/calls.md §5, for the fuzz test to take apart. */
const RICH_QUERY = {
  $expr: {
    $and: [
      { $eq: [{ $getField: 'inputs.x' }, { $literal: 1 }] },
      { $gt: [{ $convert: { input: { $getField: 'summary.weave.latency_ms' }, to: 'double' } }, { $literal: 5 }] },
      { $gte: [{ $getField: 'started_at' }, { $literal: '2025-01-01T00:00:00Z' }] },
      { $contains: { input: { $getField: 'op_name' }, substr: { $literal: 'o' }, case_insensitive: true } },
      { $in: [{ $getField: 'display_name' }, [{ $literal: 'a' }, { $literal: 'b' }]] },
      {
        $or: [
          { $not: [{ $eq: [{ $getField: 'output.y' }, { $literal: null }] }] },
          { $eq: [{ $getField: 'trace_id' }, { $literal: 't' }] },
        ],
      },
    ],
  },
};

const RICH_FILTER = { op_names: ['op'], trace_roots_only: true, call_ids: ['sec-call'], wb_user_ids: ['u'] };

function richCallsQuery(projectId: string): Record<string, unknown> {
  return {
    project_id: projectId,
    filter: RICH_FILTER,
    query: RICH_QUERY,
    sort_by: [
      { field: 'started_at', direction: 'desc' },
      { field: 'inputs.x', direction: 'asc' },
    ],
    limit: 10,
    offset: 1,
    columns: ['id', 'inputs.x', 'summary'],
    expand_columns: ['inputs.x'],
    include_costs: true,
    include_feedback: true,
    include_storage_size: true,
  };
}

function richStart(projectId: string): Record<string, unknown> {
  const start = startReq(projectId).start as Record<string, unknown>;
  return {
    start: {
      ...start,
      parent_id: 'p',
      thread_id: 'th',
      turn_id: 'tu',
      display_name: 'd',
      inputs: { x: 1, ref: 'weave:///acme/demo/object/X:abc', nested: { list: [1, 'a', null] } },
      attributes: { weave: { client_version: '1' } },
      wb_run_id: 'acme/demo/run',
      wb_run_step: 3,
    },
  };
}

function richEnd(projectId: string): Record<string, unknown> {
  const end = endReq(projectId).end as Record<string, unknown>;
  return {
    end: {
      ...end,
      output: { y: [1, 2, { z: 'weave:///acme/demo/call/c' }] },
      exception: null,
      summary: {
        usage: { 'gpt-4o': { prompt_tokens: 3, completion_tokens: '4', requests: 1 } },
        status_counts: { success: 1 },
        extra: 1,
      },
      wb_run_step_end: 4,
    },
  };
}

/** An OTLP/JSON export of one span, routed to the project by resource attributes (docs/spec/otel-service-queues.md §A.2). */
function otelExport(projectId: string): Record<string, unknown> {
  const [entity, project] = projectId.split('/');
  const attr = (key: string, value: unknown) => ({ key, value });
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [attr('wandb.entity', { stringValue: entity }), attr('wandb.project', { stringValue: project })],
        },
        scopeSpans: [
          {
            scope: { name: 'sec' },
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: 'b7ad6b7169203331',
                name: 'sec span',
                kind: 'SPAN_KIND_CLIENT',
                startTimeUnixNano: '1735725600000000000',
                endTimeUnixNano: 1735725601000000000,
                attributes: [
                  attr('gen_ai.request.model', { stringValue: 'm' }),
                  attr('gen_ai.usage.input_tokens', { intValue: '3' }),
                  attr('input.value', { stringValue: '{"a": [1, 2]}' }),
                ],
                events: [
                  {
                    name: 'gen_ai.choice',
                    timeUnixNano: '1735725600500000000',
                    attributes: [attr('text', { stringValue: 'x' })],
                  },
                ],
                status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
              },
            ],
          },
        ],
      },
    ],
  };
}

export const ROUTE_CASES: Record<string, RouteCase> = {
  // ---- service information (docs/spec/otel-service-queues.md §B)
  'GET /version': { noProject: 'service version, no project' },
  'GET /server_info': { noProject: 'server information, no project' },
  'GET /geolocate': { noProject: 'location of an IP address, no project' },
  'POST /service/projects_info': post('/service/projects_info', (p) => ({ project_ids: [p] })),

  // ---- inference catalogues (docs/spec/otel-service-queues.md §C)
  'GET /inference/analysis/:partner/models': { noProject: "the deployment's model catalogue, no project" },
  'GET /inference/router/:partner/models': { noProject: "the deployment's model catalogue, no project" },
  'GET /inference/:partner/v2/hardware': { noProject: "the deployment's hardware catalogue, no project" },

  // ---- annotation queues (docs/spec/otel-service-queues.md §D); the queue id is unknown, so owners get 404
  'POST /annotation_queues': post('/annotation_queues', (p) => ({ project_id: p, name: 'q', scorer_refs: [] })),
  'POST /annotation_queues/query': post(
    '/annotation_queues/query',
    (p) => ({ project_id: p }),
    (p) => ({ project_id: p, name: 'q', sort_by: [{ field: 'name', direction: 'asc' }], limit: 5, offset: 0 }),
  ),
  'POST /annotation_queues/stats': post('/annotation_queues/stats', (p) => ({ project_id: p, queue_ids: ['sec-q'] })),
  'GET /annotation_queues/:queue_id': {
    request: (p) => ({ url: `/annotation_queues/sec-q?project_id=${encodeURIComponent(p)}` }),
  },
  'PUT /annotation_queues/:queue_id': put('/annotation_queues/sec-q', (p) => ({ project_id: p, name: 'renamed' })),
  'DELETE /annotation_queues/:queue_id': {
    request: (p) => ({ url: `/annotation_queues/sec-q?project_id=${encodeURIComponent(p)}` }),
  },
  'POST /annotation_queues/:queue_id/items': post('/annotation_queues/sec-q/items', (p) => ({
    project_id: p,
    call_ids: ['c1'],
    display_fields: ['inputs'],
  })),
  'POST /annotation_queues/:queue_id/items/query': post('/annotation_queues/sec-q/items/query', (p) => ({
    project_id: p,
  })),
  'POST /annotation_queues/:queue_id/items/:item_id/progress': post(
    '/annotation_queues/sec-q/items/sec-i/progress',
    (p) => ({ project_id: p, annotation_state: 'completed' }),
  ),

  // ---- calls (docs/spec/calls.md §4)
  'POST /call/start': post('/call/start', startReq, richStart),
  'POST /call/end': post('/call/end', endReq, richEnd),
  'POST /call/upsert_batch': post(
    '/call/upsert_batch',
    (p) => ({
      batch: [
        { mode: 'start', req: startReq(p) },
        { mode: 'end', req: endReq(p) },
      ],
    }),
    (p) => ({ batch: [{ mode: 'start', req: richStart(p) }, { mode: 'end', req: richEnd(p) }, { req: richStart(p) }] }),
  ),
  'POST /call/read': post(
    '/call/read',
    (p) => ({ project_id: p, id: 'sec-call' }),
    (p) => ({
      project_id: p,
      id: 'sec-call',
      include_costs: true,
      include_storage_size: 'true',
      include_total_storage_size: 1,
    }),
  ),
  'POST /call/update': post('/call/update', (p) => ({ project_id: p, call_id: 'sec-call', display_name: 'renamed' })),
  'POST /calls/delete': post('/calls/delete', (p) => ({ project_id: p, call_ids: ['sec-call'] })),
  'POST /calls/stream_query': post('/calls/stream_query', (p) => ({ project_id: p }), richCallsQuery),
  'POST /calls/query': post('/calls/query', (p) => ({ project_id: p }), richCallsQuery),
  'POST /calls/export': post(
    '/calls/export',
    (p) => ({ project_id: p, format: 'csv' }),
    (p) => ({ project_id: p, filter: RICH_FILTER, query: RICH_QUERY, format: 'jsonl' }),
  ),
  'GET /projects/:entity/:project/usage': {
    request: (p) => ({ url: `/projects/${p.split('/').map(encodeURIComponent).join('/')}/usage` }),
    projectInPath: true,
  },
  'DELETE /projects/:entity/:project': {
    request: (p) => ({ url: `/projects/${p.split('/').map(encodeURIComponent).join('/')}` }),
    projectInPath: true,
  },
  'GET /projects/:entity/:project/redaction': {
    request: (p) => ({ url: `${projectUrl(p)}/redaction` }),
    projectInPath: true,
  },
  'GET /projects/:entity/:project/retention': {
    request: (p) => ({ url: `${projectUrl(p)}/retention` }),
    projectInPath: true,
  },
  'PUT /projects/:entity/:project/retention': {
    request: (p) => ({ url: `${projectUrl(p)}/retention`, body: { keep_days: 30 } }),
    projectInPath: true,
  },
  'DELETE /projects/:entity/:project/retention': {
    request: (p) => ({ url: `${projectUrl(p)}/retention` }),
    projectInPath: true,
  },
  'POST /projects/:entity/:project/retention/apply': {
    request: (p) => ({ url: `${projectUrl(p)}/retention/apply`, body: { dry_run: true, keep_days: 30 } }),
    projectInPath: true,
  },
  'GET /projects/:entity/:project/export': {
    request: (p) => ({ url: `${projectUrl(p)}/export` }),
    projectInPath: true,
  },
  'POST /projects/:entity/:project/import': {
    request: (p) => ({
      url: `${projectUrl(p)}/import`,
      raw: {
        contentType: 'application/jsonl',
        payload:
          `${JSON.stringify({ format: 'heddle-project-dump', version: 1, project_id: p, schema_version: 1 })}\n` +
          `${JSON.stringify({ end: true, rows: {} })}\n`,
      },
    }),
    projectInPath: true,
    // the owner's project may hold rows already: an import then answers 409, not an error of access
    allowed: (res) => res.statusCode === 200 || res.statusCode === 409,
  },
  'GET /projects/:entity/:project/retention/jobs/:job_id': {
    request: (p) => ({ url: `${projectUrl(p)}/retention/jobs/j1` }),
    projectInPath: true,
  },
  'POST /calls/query_stats': post(
    '/calls/query_stats',
    (p) => ({ project_id: p }),
    (p) => ({
      project_id: p,
      filter: RICH_FILTER,
      query: RICH_QUERY,
      limit: 5,
      include_total_storage_size: true,
      expand_columns: ['inputs.x'],
    }),
  ),
  'POST /calls/stats': post('/calls/stats', (p) => ({ project_id: p, start: T0, end: '2025-01-02T10:00:00Z' })),
  'POST /calls/usage': post('/calls/usage', (p) => ({ project_id: p, call_ids: ['sec-call'] })),
  'POST /trace/usage': post('/trace/usage', (p) => ({ project_id: p })),
  'POST /threads/stream_query': post('/threads/stream_query', (p) => ({ project_id: p })),

  // ---- project-scoped call writes of the Python client (routes/calls-v2.ts)
  'POST /v2/:entity/:project/calls/complete': inPath('calls/complete', (p) => ({
    batch: [{ ...(startReq(p).start as object), ...(endReq(p).end as object) }],
  })),
  'POST /v2/:entity/:project/call/start': inPath('call/start', startReq),
  'POST /v2/:entity/:project/call/end': inPath('call/end', endReq),

  // ---- v2 object APIs (docs/spec/evaluations.md §2; routes/v2-objects.ts)
  ...v2ObjectCases(),
  ...evaluationCallCases(),

  // ---- playground completions (routes/completions.ts): an unknown provider is a 200 `response.error`
  'POST /completions/create': post('/completions/create', (p) => ({
    project_id: p,
    inputs: { model: 'sec-no-such-provider/model', messages: [{ role: 'user', content: 'hi' }] },
  })),
  'POST /completions/create_stream': post('/completions/create_stream', (p) => ({
    project_id: p,
    inputs: { model: 'sec-no-such-provider/model', messages: [{ role: 'user', content: 'hi' }] },
  })),

  // ---- objects (docs/spec/objects.md §3)
  'POST /obj/create': post(
    '/obj/create',
    (p) => ({ obj: { project_id: p, object_id: 'sec-obj', val: { a: 1 } } }),
    (p) => ({
      obj: {
        project_id: p,
        object_id: 'sec-obj',
        // eslint-disable-next-line no-loss-of-precision -- an integer past 2^53 on purpose
        val: { a: [1, 1.0, 12345678901234567890, 'weave:///acme/demo/object/X:abc'], _type: 'Model' },
        builtin_object_class: null,
      },
    }),
  ),
  'POST /obj/read': post('/obj/read', (p) => ({ project_id: p, object_id: 'sec-obj', digest: 'latest' })),
  'POST /obj/delete': post('/obj/delete', (p) => ({ project_id: p, object_id: 'sec-obj' })),
  'POST /objs/query': post(
    '/objs/query',
    (p) => ({ project_id: p }),
    (p) => ({
      project_id: p,
      filter: { object_ids: ['sec-obj'], latest_only: true, is_op: false, tags: ['t'], aliases: ['prod'] },
      sort_by: [{ field: 'created_at', direction: 'desc' }],
      limit: 5,
      offset: 0,
      metadata_only: true,
      include_tags_and_aliases: true,
    }),
  ),
  'PUT /objs/:object_id/versions/:digest/tags': put('/objs/sec-obj/versions/latest/tags', (p) => ({
    project_id: p,
    tags: ['t'],
  })),
  'POST /objs/:object_id/versions/:digest/tags/remove': post('/objs/sec-obj/versions/latest/tags/remove', (p) => ({
    project_id: p,
    tags: ['t'],
  })),
  'PUT /objs/:object_id/aliases': put('/objs/sec-obj/aliases', (p) => ({
    project_id: p,
    digest: 'latest',
    aliases: ['prod'],
  })),
  'POST /objs/:object_id/aliases/remove': post('/objs/sec-obj/aliases/remove', (p) => ({
    project_id: p,
    aliases: ['prod'],
  })),
  'GET /tags': { request: (p) => ({ url: `/tags?project_id=${encodeURIComponent(p)}` }) },
  'GET /aliases': { request: (p) => ({ url: `/aliases?project_id=${encodeURIComponent(p)}` }) },

  // ---- tables and refs (docs/spec/objects.md §4, §5)
  'POST /table/create': post(
    '/table/create',
    (p) => ({ table: { project_id: p, rows: [{ a: 1 }] } }),
    (p) => ({
      table: { project_id: p, rows: [{ a: [1, 1.0, 'weave:///acme/demo/object/X:abc'] }, {}], expected_digest: null },
    }),
  ),
  // no rows: a row digest the project does not hold is a 400 (issue 17)
  'POST /table/create_from_digests': post('/table/create_from_digests', (p) => ({ project_id: p, row_digests: [] })),
  // no rich seed: it would need an existing base table (an unknown base answers 404)
  'POST /table/update': post('/table/update', (p) => ({
    project_id: p,
    base_digest: 'sec-table',
    updates: [{ append: { row: { a: 1 } } }, { insert: { index: 0, row: {} } }, { pop: { index: 0 } }],
  })),
  'POST /table/query': post(
    '/table/query',
    (p) => ({ project_id: p, digest: 'sec-table' }),
    (p) => ({
      project_id: p,
      digest: 'sec-table',
      filter: { row_digests: ['r'] },
      sort_by: [{ field: 'a.b', direction: 'desc' }],
      limit: 5,
      offset: 1,
    }),
  ),
  'POST /table/query_stream': post('/table/query_stream', (p) => ({ project_id: p, digest: 'sec-table' })),
  'POST /table/query_stats': post('/table/query_stats', (p) => ({ project_id: p, digest: 'sec-table' })),
  'POST /table/query_stats_batch': post('/table/query_stats_batch', (p) => ({
    project_id: p,
    digests: ['sec-table'],
    include_storage_size: true,
  })),
  'POST /refs/read_batch': post('/refs/read_batch', (p) => ({
    refs: [`weave:///${p}/object/sec-obj:abc/key/a/index/0`],
  })),

  // no provider key in tests: the route answers its in-band error (docs/spec/objects.md §6.4)
  'POST /image/create': post(
    '/image/create',
    (p) => ({ project_id: p, inputs: { model: 'dall-e-3', prompt: 'p' } }),
    (p) => ({
      project_id: p,
      inputs: { model: 'gpt-image-1', prompt: 'p', n: 2 },
      track_llm_call: false,
      wb_user_id: 'x',
    }),
  ),

  // ---- files (docs/spec/objects.md §6)
  'POST /file/create': { request: (p) => ({ url: '/file/create', raw: multipartUpload(p) }) },
  'POST /files/create': { request: (p) => ({ url: '/files/create', raw: multipartUpload(p) }) },
  'POST /file/content': post('/file/content', (p) => ({ project_id: p, digest: 'sec-digest' })),
  'POST /files/content': post('/files/content', (p) => ({ project_id: p, digest: 'sec-digest' })),
  'POST /files/query_stats': post('/files/query_stats', (p) => ({ project_id: p })),

  // ---- feedback and costs (docs/spec/objects.md §7, §8)
  'POST /feedback/create': post('/feedback/create', feedbackReq, (p) => ({
    ...feedbackReq(p),
    feedback_type: 'wandb.reaction.1',
    payload: { emoji: '👍' },
    creator: 'c',
  })),
  'POST /feedback/batch/create': post('/feedback/batch/create', (p) => ({ batch: [feedbackReq(p)] })),
  'POST /feedback/query': post(
    '/feedback/query',
    (p) => ({ project_id: p }),
    (p) => ({
      project_id: p,
      fields: ['id', 'payload.note'],
      query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.note.1' }] } },
      sort_by: [{ field: 'created_at', direction: 'desc' }],
      limit: 5,
      offset: 0,
    }),
  ),
  'POST /feedback/replace': post('/feedback/replace', (p) => ({ ...feedbackReq(p), feedback_id: 'sec-feedback' })),
  'POST /feedback/purge': post('/feedback/purge', (p) => ({ project_id: p, query: ID_QUERY })),
  'POST /feedback/payload_schema': post('/feedback/payload_schema', (p) => ({
    project_id: p,
    start: T0,
    end: '2025-01-02T10:00:00Z',
  })),
  'POST /feedback/stats': post('/feedback/stats', (p) => ({
    project_id: p,
    start: T0,
    end: '2025-01-02T10:00:00Z',
    metrics: [{ json_path: 'score', value_type: 'numeric', aggregations: ['avg'], percentiles: [50] }],
  })),
  'POST /cost/create': post('/cost/create', (p) => ({
    project_id: p,
    costs: { 'sec-llm': { prompt_token_cost: 0.001, completion_token_cost: 0.002 } },
  })),
  'POST /cost/query': post(
    '/cost/query',
    (p) => ({ project_id: p }),
    (p) => ({
      project_id: p,
      fields: ['id', 'llm_id'],
      query: { $expr: { $eq: [{ $getField: 'llm_id' }, { $literal: 'sec-llm' }] } },
      sort_by: [{ field: 'effective_date', direction: 'desc' }],
      limit: 5,
    }),
  ),
  'POST /cost/purge': post('/cost/purge', (p) => ({ project_id: p, query: ID_QUERY })),

  // ---- OpenTelemetry ingest (docs/spec/otel-service-queues.md §A); the project is named by resource attributes
  'POST /otel/v1/traces': post('/otel/v1/traces', otelExport),
  'POST /otel/v1/trace': post('/otel/v1/trace', otelExport),

  // ---- Agents API (docs/spec/agents.md); the ingest paths route by resource attributes like /otel/v1/traces
  'POST /agents/otel/v1/traces': post('/agents/otel/v1/traces', otelExport),
  'POST /otel/v1/genai/traces': post('/otel/v1/genai/traces', otelExport),
  'POST /otel/v1/genai/span/start': post('/otel/v1/genai/span/start', (p) => ({
    project_id: p,
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: 'c1a2b3c4d5e6f708',
    operation_name: 'invoke_agent',
    agent_name: 'sec',
  })),
  'POST /agents/spans/query': post(
    '/agents/spans/query',
    (p) => ({ project_id: p }),
    (p) => ({
      project_id: p,
      query: { $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: 'sec' }] } },
      sort_by: [{ field: 'input_tokens', direction: 'asc' }],
      include_details: true,
      limit: 5,
    }),
  ),
  'POST /agents/spans/custom-attrs/schema': post('/agents/spans/custom-attrs/schema', (p) => ({ project_id: p })),
  'POST /agents/spans/stats': post('/agents/spans/stats', (p) => ({
    project_id: p,
    start: '2026-01-01T00:00:00Z',
    end: '2026-01-01T03:00:00Z',
    metrics: [{ alias: 'tok', value_type: 'number', value: { key: 'input_tokens' } }],
  })),
  'POST /agents/spans/diagnostics': post('/agents/spans/diagnostics', (p) => ({
    project_id: p,
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: 'b7ad6b7169203331',
  })),
  'POST /agents/query': post('/agents/query', (p) => ({ project_id: p })),
  'POST /agents/agent-versions/query': post('/agents/agent-versions/query', (p) => ({
    project_id: p,
    agent_name: 'sec',
  })),
  'POST /agents/search': post('/agents/search', (p) => ({ project_id: p, query: 'x' })),
  'POST /agents/traces/chat': post('/agents/traces/chat', (p) => ({
    project_id: p,
    trace_id: '0af7651916cd43dd8448eb211c80319c',
  })),
  'POST /agents/conversations/chat': post('/agents/conversations/chat', (p) => ({
    project_id: p,
    conversation_id: 'sec',
  })),
  'POST /agents/conversations/spans': post('/agents/conversations/spans', (p) => ({
    project_id: p,
    conversation_ids: ['sec'],
  })),

  // ---- W&B GraphQL used by weave.init: creating a project is the tenancy-relevant operation.
  'POST /graphql': {
    request: (p) => ({
      url: '/graphql',
      body: {
        query:
          'mutation Up($e: String, $n: String) { upsertModel(input: { entityName: $e, name: $n }) { inserted project { name } } }',
        variables: { e: p.split('/')[0], n: p.split('/')[1] },
      },
    }),
    refused: (res) =>
      res.statusCode === 200 && graphqlCode(res) === 'PERMISSION_ERROR' && res.json().data?.upsertModel == null,
    allowed: (res) =>
      res.statusCode === 200 &&
      res.json().errors === undefined &&
      typeof res.json().data?.upsertModel?.inserted === 'boolean',
    // GraphQL-over-HTTP: `{"errors": [{"message": …}]}`, which is what the W&B clients read.
    errorShape: 'graphql',
  },

  // ---- training (docs/spec/training.md §4); routes with a model or job id in the path name no project:
  // their tenancy (another entity's model or job → 403) is tested in test/routes/training-*.test.ts
  'POST /v1/preview/models': {
    request: (p) => ({
      url: '/v1/preview/models',
      body: { entity: p.split('/')[0], project: p.split('/')[1], name: 'sec', base_model: 'b', return_existing: true },
    }),
    // entity and project travel as separate fields, so a malformed `entity/project` cannot be expressed
    projectInPath: true,
  },
  'GET /v1/preview/models': {
    request: (p) => ({ url: `/v1/preview/models?entity=${encodeURIComponent(p.split('/')[0]!)}` }),
    projectInPath: true,
  },
  'GET /v1/preview/models/:model_id': {
    noProject: 'model id in the path (tenancy: test/routes/training-models.test.ts)',
  },
  'DELETE /v1/preview/models/:model_id': {
    noProject: 'model id in the path (tenancy: test/routes/training-jobs.test.ts)',
  },
  'GET /v1/preview/models/:model_id/checkpoints': {
    noProject: 'model id in the path (tenancy: test/routes/training-jobs.test.ts)',
  },
  'GET /v1/preview/models/:model_id/training-jobs': {
    noProject: 'model id in the path (tenancy: test/routes/training-models.test.ts)',
  },
  'GET /v1/preview/models/:model_id/history': {
    noProject: 'model id in the path (tenancy: test/routes/training-models.test.ts)',
  },
  'DELETE /v1/preview/models/:model_id/checkpoints': {
    noProject: 'model id in the path (tenancy: test/routes/training-jobs.test.ts)',
  },
  'POST /v1/preview/models/:model_id/log': {
    noProject: "model id in the path; a new id registers in the caller's own entity (§4.6)",
  },
  'POST /v1/preview/training-jobs': {
    noProject: "model id in the body; a new id registers in the caller's own entity (§4.6)",
  },
  'POST /v1/preview/sft-training-jobs': {
    noProject: "model id in the body; a new id registers in the caller's own entity (§4.6)",
  },
  'GET /v1/preview/training-jobs/:training_job_id': {
    noProject: 'job id in the path (tenancy: test/routes/training-jobs.test.ts)',
  },
  'GET /v1/preview/training-jobs/:training_job_id/events': {
    noProject: 'job id in the path (tenancy: test/routes/training-jobs.test.ts)',
  },
  'POST /v1/chat/completions': {
    request: (p) => ({
      url: '/v1/chat/completions',
      body: { model: `wandb-artifact:///${p}/sec-never-created`, messages: [{ role: 'user', content: 'hi' }] },
    }),
  },
  // ---- API key management (routes/keys.ts): the entity travels alone, so a malformed project id cannot be expressed
  'POST /keys/create': {
    request: (p) => ({ url: '/keys/create', body: { entity: p.split('/')[0], username: 'sec-user' } }),
    projectInPath: true,
  },
  'POST /keys/query': {
    request: (p) => ({ url: '/keys/query', body: { entity: p.split('/')[0] } }),
    projectInPath: true,
  },
  'POST /keys/revoke': {
    request: (p) => ({ url: '/keys/revoke', body: { entity: p.split('/')[0], id: 'key_sec_missing' } }),
    projectInPath: true,
  },
  // ---- audit log and members' roles (routes/audit.ts): the entity travels alone, like the keys routes
  'GET /audit': {
    request: (p) => ({ url: `/audit?entity=${encodeURIComponent(p.split('/')[0]!)}&limit=5` }),
    projectInPath: true,
  },
  'POST /memberships/query': {
    request: (p) => ({ url: '/memberships/query', body: { entity: p.split('/')[0] } }),
    projectInPath: true,
  },
  // no such member, so the entity's admin gets 404 and nothing changes
  'POST /memberships/update': {
    request: (p) => ({
      url: '/memberships/update',
      body: { entity: p.split('/')[0], username: 'sec-user', role: 'viewer' },
    }),
    projectInPath: true,
  },
  'POST /v1/workers/lease': { noProject: "leases jobs of the caller's own entities only (test/training-worker)" },
  'GET /v1/workers/jobs/:job_id/parent-checkpoint': { noProject: 'job id in the path (tenancy: test/training-worker)' },
  'GET /v1/workers/models/:model_id/checkpoints/:step': {
    noProject: 'model id in the path (tenancy: test/routes/training-worker-inference.test.ts)',
  },
  'POST /v1/workers/jobs/:job_id/heartbeat': { noProject: 'job id in the path (tenancy: test/training-worker)' },
  'POST /v1/workers/jobs/:job_id/events': { noProject: 'job id in the path (tenancy: test/training-worker)' },
  'POST /v1/workers/jobs/:job_id/complete': { noProject: 'job id in the path (tenancy: test/training-worker)' },
  'POST /v1/workers/jobs/:job_id/checkpoint': {
    noProject: 'job id in the path (tenancy: test/routes/training-worker-inference.test.ts)',
  },
  'POST /v1/workers/jobs/:job_id/fail': { noProject: 'job id in the path (tenancy: test/training-worker)' },
  'POST /v1/workers/jobs/:job_id/release': { noProject: 'job id in the path (tenancy: test/routes/training-workers)' },

  // ---- web UI: sessions, the project list, the live tail (test/routes/ui-session.test.ts, live-tail.test.ts)
  'GET /auth/session': { noProject: 'the signed-in user, no project' },
  'GET /projects': { noProject: "lists only projects of the caller's own entities (test/routes/ui-session.test.ts)" },
  'GET /calls/live_tail': {
    request: (p) => ({ url: `/calls/live_tail?project_id=${encodeURIComponent(p)}`, eventStream: true }),
  },

  // ---- alerts (docs/alerts.md, test/routes/alerts.test.ts); an unknown alert is the owner's 404
  'GET /projects/:entity/:project/alerts': {
    request: (p) => ({ url: `${projectUrl(p)}/alerts` }),
    projectInPath: true,
  },
  'GET /projects/:entity/:project/alerts/:alert_id/history': {
    request: (p) => ({ url: `${projectUrl(p)}/alerts/sec-alert/history?limit=5` }),
    projectInPath: true,
  },
  'PUT /projects/:entity/:project/alerts/:alert_id/mute': {
    request: (p) => ({ url: `${projectUrl(p)}/alerts/sec-alert/mute`, body: { muted: true } }),
    projectInPath: true,
  },

  // ---- the Model Context Protocol (docs/mcp.md, test/routes/mcp.test.ts): a tool that fails answers
  // a JSON-RPC result with isError and the REST status; the write tools' roles are tested there
  'POST /mcp': {
    request: (p) => ({ url: '/mcp', body: mcpCall('query_calls', { project_id: p, limit: 1 }) }),
    refused: (res) => res.statusCode === 200 && mcpToolError(res)?.status === 403,
    allowed: (res) => res.statusCode === 200 && res.json().result?.isError === undefined,
    fuzzBody: (p) =>
      mcpCall('query_calls', {
        project_id: p,
        filter: { op_names: ['op'], trace_roots_only: true },
        query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'op' }] } },
        limit: 5,
        offset: 0,
      }),
    errorShape: 'jsonrpc',
  },
};

function mcpCall(name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
}

/** The `error` of an MCP tool's error result (its text content is `{"error": {status, reason}}`). */
function mcpToolError(res: LightMyRequestResponse): { status?: unknown } | undefined {
  const result = (res.json() as { result?: { isError?: boolean; content?: Array<{ text?: string }> } }).result;
  if (result?.isError !== true) return undefined;
  return (JSON.parse(result.content?.[0]?.text ?? '{}') as { error?: { status?: unknown } }).error;
}

function graphqlCode(res: LightMyRequestResponse): unknown {
  return (res.json() as { errors?: Array<{ extensions?: { code?: unknown } }> }).errors?.[0]?.extensions?.code;
}

export const routeKey = (route: Pick<RouteInfo, 'method' | 'url'>): string => `${route.method} ${route.url}`;

/**
 * The routes a caller must authenticate for: every registered route except public ones and
 * Fastify's automatic HEAD twins (they share their GET route's hooks).
 */
export function authenticatedRoutes(app: FastifyInstance): RouteInfo[] {
  return app.routeTable.filter((r) => !r.public && !r.autoHead);
}

/** Authenticated routes with no entry in ROUTE_CASES (must stay empty). */
export function routesWithoutCase(app: FastifyInstance): string[] {
  return authenticatedRoutes(app)
    .map(routeKey)
    .filter((key) => !(key in ROUTE_CASES));
}

/** A request for a route: its case, or for the auth tests (which never get past auth) a bare URL. */
export function requestFor(route: RouteInfo, projectId: string): CaseRequest {
  const entry = ROUTE_CASES[routeKey(route)];
  if (entry?.request) return entry.request(projectId);
  return {
    url: route.url.replace(/:([A-Za-z0-9_]+)/g, 'x').replace(/\*/g, 'x'),
    body: route.method === 'GET' ? undefined : {},
  };
}
