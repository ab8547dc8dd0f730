import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';

/**
 * The §5.7 fixture of the calls spec: four calls in `acme/demo`, c-0004 still running.
 * Written through the HTTP API so the fixture itself exercises /call/start and /call/end.
 */
export const FIXTURE_IDS = ['c-0001', 'c-0002', 'c-0003', 'c-0004'] as const;

interface FixtureCall {
  id: string;
  parent_id: string | null;
  trace_id: string;
  op_name: string;
  started_at: string;
  ended_at: string | null;
  exception: string | null;
  display_name: string | null;
  inputs: Record<string, unknown>;
}

export const FIXTURE_CALLS: readonly FixtureCall[] = [
  {
    id: 'c-0001',
    parent_id: null,
    trace_id: 'c-0001',
    op_name: 'chat',
    started_at: '2025-01-01T10:00:00Z',
    ended_at: '2025-01-01T10:00:02.5Z',
    exception: null,
    display_name: null,
    inputs: { prompt: 'Hello World', n: 3 },
  },
  {
    id: 'c-0002',
    parent_id: 'c-0001',
    trace_id: 'c-0001',
    op_name: 'retrieve',
    started_at: '2025-01-01T10:00:00.5Z',
    ended_at: '2025-01-01T10:00:01Z',
    exception: null,
    display_name: null,
    inputs: { query: 'hello', k: 10 },
  },
  {
    id: 'c-0003',
    parent_id: null,
    trace_id: 'c-0003',
    op_name: 'chat',
    started_at: '2025-01-01T10:05:00Z',
    ended_at: '2025-01-01T10:05:01Z',
    exception: 'ValueError: boom',
    display_name: 'Second chat',
    inputs: { prompt: 'bye', n: 12 },
  },
  {
    id: 'c-0004',
    parent_id: null,
    trace_id: 'c-0004',
    op_name: 'embed',
    started_at: '2025-01-01T10:10:00Z',
    ended_at: null,
    exception: null,
    display_name: null,
    inputs: { text: 'x' },
  },
];

/** Writes the fixture into `project` (default acme/demo) and checks every write answered 200. */
export async function writeFixture(h: TestApp, project = PROJECT): Promise<void> {
  for (const c of FIXTURE_CALLS) {
    const start = await h.post('/call/start', {
      start: {
        project_id: project,
        id: c.id,
        trace_id: c.trace_id,
        parent_id: c.parent_id,
        op_name: c.op_name,
        display_name: c.display_name,
        started_at: c.started_at,
        attributes: {},
        inputs: c.inputs,
      },
    });
    assert.equal(start.statusCode, 200, start.body);
    if (c.ended_at === null) continue;
    const end = await h.post('/call/end', {
      end: {
        project_id: project,
        id: c.id,
        ended_at: c.ended_at,
        exception: c.exception,
        output: { id: c.id },
        summary: {},
      },
    });
    assert.equal(end.statusCode, 200, end.body);
  }
}

/** A fresh app with the fixture written. */
export async function fixtureApp(t: Pick<TestContext, 'after'>): Promise<TestApp> {
  const h = await buildTestApp(t);
  await writeFixture(h);
  return h;
}

/** POSTs a /calls/stream_query (body merged with the project) and returns the parsed lines; asserts 200. */
export async function streamQuery(h: TestApp, body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return parseJsonl(res.body);
}

/** The ids /calls/stream_query returns for `body`, in response order. */
export async function queryIds(h: TestApp, body: Record<string, unknown>): Promise<string[]> {
  return (await streamQuery(h, body)).map((call) => call.id as string);
}

/** `{"$expr": …}` shorthand. */
export const expr = (e: unknown): { query: { $expr: unknown } } => ({ query: { $expr: e } });
export const field = (path: string): { $getField: string } => ({ $getField: path });
export const lit = (value: unknown): { $literal: unknown } => ({ $literal: value });

/** /call/read as alice; returns the `call` (null when not visible). */
export async function readCall(
  h: TestApp,
  id: string,
  extra: Record<string, unknown> = {},
  project = PROJECT,
): Promise<Record<string, any> | null> {
  const res = await h.post('/call/read', { project_id: project, id, ...extra });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().call;
}

/** Asserts a 422 validation body: non-empty `detail` of `{loc: string[], msg: string, type: string}` (checklist 40). */
export function assertValidationBody(body: unknown): Array<{ loc: string[]; msg: string; type: string }> {
  const detail = (body as { detail?: unknown }).detail;
  assert.ok(Array.isArray(detail) && detail.length > 0, `detail should be a non-empty array: ${JSON.stringify(body)}`);
  for (const item of detail as Array<Record<string, unknown>>) {
    assert.ok(Array.isArray(item.loc), 'loc is an array');
    for (const part of item.loc as unknown[]) assert.equal(typeof part, 'string', 'every loc item is a string');
    assert.equal(typeof item.msg, 'string');
    assert.equal(typeof item.type, 'string');
  }
  return detail as Array<{ loc: string[]; msg: string; type: string }>;
}
