import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { RouteInfo } from '../../src/plugins/route-table.js';
import type { EntityRole } from '../../src/store/types.js';
import { basicAuth, buildTestApp, type TestApp } from '../helpers/app.js';
import { dbFingerprint } from './db-fingerprint.js';
import { describeResponse, errorMessage, send } from './inject.js';
import { authenticatedRoutes, requestFor, ROUTE_CASES, routeKey, type RouteCase } from './route-cases.js';

/**
 * The role matrix (docs/roles-and-audit.md), like the tenancy matrix: every route of the app's own
 * route table and of /openapi.json is classified read, write or admin (src/plugins/route-access.ts),
 * and each class is tried with a viewer, a member and an admin of the entity.
 */

/** A user with the given roles and a key; returns the key. */
async function userWith(h: TestApp, username: string, roles: Record<string, EntityRole>): Promise<string> {
  let key: string | null = null;
  for (const [entity, role] of Object.entries(roles)) {
    const created = await h.app.services.auth.createKey({ entity, username });
    await h.store.auth.setMembershipRole(created.record.userId, entity, role);
    key ??= created.key;
  }
  return key!;
}

function isRefused(res: LightMyRequestResponse): boolean {
  return res.statusCode === 403 && errorMessage(res) !== undefined;
}

function isAllowed(entry: RouteCase, res: LightMyRequestResponse): boolean {
  if (entry.allowed) return entry.allowed(res);
  return (res.statusCode >= 200 && res.statusCode < 300) || res.statusCode === 404;
}

const byAccess = (h: TestApp, access: RouteInfo['access']) =>
  authenticatedRoutes(h.app).filter((route) => route.access === access);

/** Routes of a class that have a request naming a project, with their case. */
const withCase = (h: TestApp, access: RouteInfo['access']) =>
  byAccess(h, access).flatMap((route) => {
    const entry = ROUTE_CASES[routeKey(route)];
    return entry?.request ? [{ route, entry }] : [];
  });

test('every route of the app and of /openapi.json is classified read, write or admin', async (t) => {
  const h = await buildTestApp(t);
  const unclassified = authenticatedRoutes(h.app)
    .filter((route) => route.access === null)
    .map(routeKey);
  assert.deepEqual(
    unclassified,
    [],
    'add these routes to the access table of their area (the routeArea of their file in src/routes/)',
  );
  const doc = (await h.get('/openapi.json', null)).json() as { paths: Record<string, Record<string, unknown>> };
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    const url = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of Object.keys(operations)) {
      const route = h.app.routeTable.find((r) => r.method === method.toUpperCase() && r.url === url);
      if (!route || (!route.public && route.access === null)) missing.push(`${method.toUpperCase()} ${path}`);
    }
  }
  assert.deepEqual(missing, [], 'documented operations without a classified route');
  for (const access of ['read', 'write', 'admin'] as const) assert.ok(byAccess(h, access).length > 0, access);
});

test('a viewer key gets 403 with a reason on every write and admin route, and writes nothing', async (t) => {
  const h = await buildTestApp(t);
  const viewer = await userWith(h, 'vera', { acme: 'viewer' });
  const before = dbFingerprint(h);
  const routes = [...byAccess(h, 'write'), ...byAccess(h, 'admin')];
  assert.ok(routes.length >= 60, `expected every write route, got ${routes.length}`);
  const failures: string[] = [];
  for (const route of routes) {
    const request = requestFor(route, 'acme/demo');
    const res = await send(h, route, request, { authorization: basicAuth(viewer) });
    if (!isRefused(res)) failures.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(failures, [], 'a viewer was not refused');
  assert.equal(dbFingerprint(h), before, 'a refused request wrote to the database');
});

test('a viewer is not refused on read routes', async (t) => {
  const h = await buildTestApp(t);
  const viewer = await userWith(h, 'vera', { acme: 'viewer' });
  const failures: string[] = [];
  for (const route of byAccess(h, 'read')) {
    const entry = ROUTE_CASES[routeKey(route)];
    // GraphQL's case is the one mutation (creating a project): a viewer's refusal is tested below
    if (entry?.refused) continue;
    const request = requestFor(route, 'acme/demo');
    const res = await send(h, route, request, { authorization: basicAuth(viewer) });
    const ok = entry?.request ? isAllowed(entry, res) : res.statusCode !== 403 && res.statusCode < 500;
    if (!ok) failures.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(failures, [], 'a viewer was refused a read');
});

test('viewer of acme and member of other: refused on acme/demo by the service, allowed on other/x', async (t) => {
  const h = await buildTestApp(t);
  const mixed = await userWith(h, 'mia', { acme: 'viewer', other: 'member' });
  const before = dbFingerprint(h);
  const notRefused: string[] = [];
  for (const { route, entry } of withCase(h, 'write')) {
    const request = entry.request!('acme/demo');
    const res = await send(h, route, request, { authorization: basicAuth(mixed) });
    if (!isRefused(res)) notRefused.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(notRefused, [], 'a viewer of acme wrote to acme/demo');
  assert.equal(dbFingerprint(h), before, 'a refused request wrote to the database');
  const refused: string[] = [];
  for (const { route, entry } of withCase(h, 'write')) {
    const request = entry.request!('other/x');
    const res = await send(h, route, request, { authorization: basicAuth(mixed) });
    if (!isAllowed(entry, res)) refused.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(refused, [], 'a member of other was refused a write to other/x');
});

test('a member can write but gets 403 on admin routes; an entity admin passes them', async (t) => {
  const h = await buildTestApp(t);
  const member = await userWith(h, 'max', { acme: 'member' });
  const failures: string[] = [];
  for (const { route, entry } of withCase(h, 'write')) {
    const request = entry.request!('acme/demo');
    const res = await send(h, route, request, { authorization: basicAuth(member) });
    if (!isAllowed(entry, res)) failures.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(failures, [], 'a member was refused a write');
  const admins = byAccess(h, 'admin');
  const notRefused: string[] = [];
  const adminRefused: string[] = [];
  for (const route of admins) {
    const request = requestFor(route, 'acme/demo');
    const asMember = await send(h, route, request, { authorization: basicAuth(member) });
    if (!isRefused(asMember)) notRefused.push(describeResponse(route.method, request.url, asMember));
    const entry = ROUTE_CASES[routeKey(route)];
    if (!entry?.request) continue;
    const asAdmin = await send(h, route, request, { authorization: basicAuth(h.aliceKey) });
    if (!isAllowed(entry, asAdmin)) adminRefused.push(describeResponse(route.method, request.url, asAdmin));
  }
  assert.deepEqual(notRefused, [], 'a member passed an admin route');
  assert.deepEqual(adminRefused, [], 'the entity admin was refused');
});

test('GraphQL: a viewer reads an existing project but cannot create one', async (t) => {
  const h = await buildTestApp(t);
  const viewer = await userWith(h, 'vera', { acme: 'viewer' });
  const upsert = (name: string, key: string) =>
    h.post(
      '/graphql',
      {
        query: 'mutation Up($e: String, $n: String) { upsertModel(input: { entityName: $e, name: $n }) { inserted } }',
        variables: { e: 'acme', n: name },
      },
      key,
    );
  const created = await upsert('demo', h.aliceKey);
  assert.equal(created.json().data.upsertModel.inserted, true);
  const existing = await upsert('demo', viewer);
  assert.equal(existing.json().errors, undefined, existing.body);
  assert.equal(existing.json().data.upsertModel.inserted, false);
  const fresh = await upsert('fresh', viewer);
  assert.equal(fresh.json().errors?.[0]?.extensions?.code, 'PERMISSION_ERROR', fresh.body);
  assert.match(fresh.json().errors[0].message, /viewer/);
});
