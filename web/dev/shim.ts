/**
 * Development and test shim for the session contract (`/auth/session`, `/projects`,
 * `/calls/live_tail`) in front of a Heddle server that predates it. It keeps API keys in its own
 * memory keyed by a random HttpOnly cookie, forwards API calls upstream with HTTP Basic, checks the
 * CSRF header like the real server, and emulates the live tail by polling `/calls/stream_query`.
 * Not shipped: the built app only talks to the real endpoints.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Next = (err?: unknown) => void;

interface Session {
  key: string;
  user: { id: string; username: string };
  entities: string[];
}

export interface ShimOptions {
  upstream: string;
  /** Projects listed by GET /projects (the old server has no listing). */
  projects?: string[];
  pollMs?: number;
}

const API_PREFIXES = [
  '/calls/',
  '/call/',
  '/feedback/',
  '/threads/',
  '/obj/',
  '/objs/',
  '/file/',
  '/files/',
  '/refs/',
  '/table/',
  '/trace/',
  '/graphql',
];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

export function createDevShim(opts: ShimOptions) {
  const sessions = new Map<string, Session>();
  const projects = new Set(opts.projects ?? (process.env.HEDDLE_DEV_PROJECTS ?? '').split(',').filter(Boolean));
  const basic = (key: string) => `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  const up = (path: string, key: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(opts.upstream + path, {
      method: init.method ?? 'POST',
      headers: { authorization: basic(key), 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  return async function shim(req: IncomingMessage, res: ServerResponse, next: Next): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const sid = cookie(req, 'heddle_session');
      const session = sid ? sessions.get(sid) : undefined;
      const isApi = path === '/auth/session' || path === '/projects' || API_PREFIXES.some((p) => path.startsWith(p));
      if (!isApi) return next();
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.headers['x-heddle-csrf'] !== '1')
        return json(res, 403, { reason: 'Missing X-Heddle-CSRF header' });

      if (path === '/auth/session') {
        if (req.method === 'GET')
          return session
            ? json(res, 200, { user: session.user, entities: session.entities })
            : json(res, 401, { reason: 'Not authenticated' });
        if (req.method === 'DELETE') {
          if (sid) sessions.delete(sid);
          res.writeHead(204, { 'set-cookie': 'heddle_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0' });
          return void res.end();
        }
        const { api_key } = JSON.parse((await readBody(req)).toString() || '{}') as { api_key?: string };
        if (!api_key)
          return json(res, 422, { detail: [{ loc: ['body', 'api_key'], msg: 'Field required', type: 'missing' }] });
        const r = await up('/graphql', api_key, {
          body: { query: '{ viewer { id username defaultEntity { name } } }' },
        });
        const data = (await r.json().catch(() => null)) as {
          data?: { viewer?: { id: string; username: string; defaultEntity?: { name: string } | null } };
        } | null;
        const viewer = data?.data?.viewer;
        if (!r.ok || !viewer) return json(res, 401, { reason: 'Invalid API key' });
        const id = randomBytes(24).toString('base64url');
        const s: Session = {
          key: api_key,
          user: { id: viewer.id, username: viewer.username },
          entities: viewer.defaultEntity ? [viewer.defaultEntity.name] : [],
        };
        sessions.set(id, s);
        return json(
          res,
          200,
          { user: s.user, entities: s.entities },
          { 'set-cookie': `heddle_session=${id}; Path=/; HttpOnly; SameSite=Strict` },
        );
      }
      if (!session) return json(res, 401, { reason: 'Not authenticated' });

      if (path === '/projects') {
        const list = await Promise.all(
          [...projects].sort().map(async (project_id) => {
            const [entity, name] = project_id.split('/');
            const stats = (await (await up('/calls/query_stats', session.key, { body: { project_id } })).json()) as {
              count?: number;
            };
            const last = await (
              await up('/calls/stream_query', session.key, {
                body: { project_id, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 1, columns: ['id'] },
              })
            ).text();
            const lastAt = last.trim() ? (JSON.parse(last.split('\n')[0]!) as { started_at: string }).started_at : null;
            return {
              project_id,
              entity,
              name,
              created_at: null,
              last_call_at: lastAt,
              call_count: stats.count ?? null,
            };
          }),
        );
        return json(res, 200, { projects: list });
      }

      if (path === '/calls/live_tail') return liveTail(url, session.key, req, res);

      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req);
      const headers: Record<string, string> = { authorization: basic(session.key) };
      for (const h of ['content-type', 'accept']) if (req.headers[h]) headers[h] = String(req.headers[h]);
      const r = await fetch(opts.upstream + path + url.search, {
        method: req.method,
        headers,
        body: body ? new Uint8Array(body) : undefined,
      });
      const pid =
        body && headers['content-type']?.includes('json')
          ? (JSON.parse(body.toString() || '{}') as { project_id?: unknown }).project_id
          : null;
      if (typeof pid === 'string' && r.ok) projects.add(pid);
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/octet-stream' });
      if (!r.body) return void res.end();
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch (e) {
      if (!res.headersSent) json(res, 502, { reason: `Dev shim: ${e instanceof Error ? e.message : String(e)}` });
      else res.end();
    }
  };

  async function liveTail(url: URL, key: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const project_id = url.searchParams.get('project_id') ?? '';
    const filter = JSON.parse(url.searchParams.get('filter') ?? 'null') as unknown;
    const query = JSON.parse(url.searchParams.get('query') ?? 'null') as unknown;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    const seen = new Set<string>();
    let since = req.headers['last-event-id']
      ? String(req.headers['last-event-id']).split('|')[0]
      : new Date().toISOString();
    let closed = false;
    req.on('close', () => (closed = true));
    while (!closed) {
      const r = await up('/calls/stream_query', key, {
        body: {
          project_id,
          filter,
          query: {
            $expr: {
              $and: [
                { $gte: [{ $getField: 'started_at' }, { $literal: since }] },
                ...(query ? [(query as { $expr: unknown }).$expr] : []),
              ],
            },
          },
          sort_by: [{ field: 'started_at', direction: 'asc' }],
          columns: [
            'id',
            'op_name',
            'display_name',
            'trace_id',
            'parent_id',
            'thread_id',
            'started_at',
            'ended_at',
            'exception',
            'summary',
          ],
          include_costs: true,
          include_feedback: true,
          limit: 500,
        },
      }).catch(() => null);
      if (r?.ok) {
        for (const line of (await r.text()).split('\n')) {
          if (!line.trim()) continue;
          const call = JSON.parse(line) as { id: string; started_at: string };
          if (seen.has(call.id)) continue;
          seen.add(call.id);
          since = call.started_at;
          res.write(`event: call\nid: ${call.started_at}|${call.id}\ndata: ${line}\n\n`);
        }
      }
      await new Promise((r2) => setTimeout(r2, opts.pollMs ?? 1000));
    }
  }
}
