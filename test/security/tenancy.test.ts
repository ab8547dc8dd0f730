import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { basicAuth, buildTestApp } from '../helpers/app.js';
import { dbFingerprint } from './db-fingerprint.js';
import { describeResponse, errorMessage, send } from './inject.js';
import { authenticatedRoutes, ROUTE_CASES, routeKey, type RouteCase } from './route-cases.js';

/**
 * Tenancy (docs/spec/README.md "Tenancy"): a key reaches only the entities its user belongs to. Every
 * registered route that names a project is tried against another entity's project; routes are
 * taken from the app's own route table, so routes added later are covered without editing this.
 */

function isRefused(entry: RouteCase, res: LightMyRequestResponse): boolean {
  if (entry.refused) return entry.refused(res);
  return res.statusCode === 403 && errorMessage(res) !== undefined;
}

function isAllowed(entry: RouteCase, res: LightMyRequestResponse): boolean {
  if (entry.allowed) return entry.allowed(res);
  return (res.statusCode >= 200 && res.statusCode < 300) || res.statusCode === 404;
}

function projectRoutes(h: Awaited<ReturnType<typeof buildTestApp>>) {
  return authenticatedRoutes(h.app).flatMap((route) => {
    const entry = ROUTE_CASES[routeKey(route)];
    return entry?.request ? [{ route, entry }] : [];
  });
}

test('a key of entity acme gets 403 on every route against a project of entity other, and writes nothing', async (t) => {
  const h = await buildTestApp(t);
  const routes = projectRoutes(h);
  assert.ok(routes.length >= 10, `expected the calls routes at least, got ${routes.length}`);
  const before = dbFingerprint(h);
  const failures: string[] = [];
  for (const { route, entry } of routes) {
    for (const project of ['other/x', 'other/demo', 'nobody/x']) {
      const request = entry.request!(project);
      const res = await send(h, route, request, { authorization: basicAuth(h.aliceKey) });
      if (!isRefused(entry, res)) failures.push(describeResponse(route.method, request.url, res));
    }
  }
  assert.deepEqual(failures, [], 'these requests were not refused');
  assert.equal(dbFingerprint(h), before, 'a refused request wrote to the database');
});

test('the same requests succeed for a member of the entity (so the 403 above is about tenancy)', async (t) => {
  const h = await buildTestApp(t);
  const failures: string[] = [];
  for (const { route, entry } of projectRoutes(h)) {
    const request = entry.request!('other/x');
    const res = await send(h, route, request, { authorization: basicAuth(h.bobKey) });
    if (!isAllowed(entry, res)) failures.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(failures, [], 'fix the ROUTE_CASES entry (the request must be valid) or the route');
});

test('the other direction: bob (entity other) is refused on acme/demo; the admin is not', async (t) => {
  const adminKey = randomBytes(20).toString('hex');
  const h = await buildTestApp(t, { HEDDLE_ADMIN_KEY: adminKey });
  await h.app.services.auth.bootstrapAdmin(adminKey, 'admin');
  const refused: string[] = [];
  const adminFailures: string[] = [];
  for (const { route, entry } of projectRoutes(h)) {
    const request = entry.request!('acme/demo');
    const asBob = await send(h, route, request, { authorization: basicAuth(h.bobKey) });
    if (!isRefused(entry, asBob)) refused.push(describeResponse(route.method, request.url, asBob));
    const asAdmin = await send(h, route, request, { authorization: `Bearer ${adminKey}` });
    if (!isAllowed(entry, asAdmin)) adminFailures.push(describeResponse(route.method, request.url, asAdmin));
  }
  assert.deepEqual(refused, [], 'bob reached acme/demo');
  assert.deepEqual(adminFailures, [], 'the admin was refused');
});

const LONG = `acme/${'x'.repeat(100_000)}`;

test('a malformed project id is a 400 with a reason, not a 403 or 500', async (t) => {
  const h = await buildTestApp(t);
  const failures: string[] = [];
  for (const { route, entry } of projectRoutes(h)) {
    // GraphQL takes entity and name apart; a path cannot carry a malformed `entity/project`
    if (entry.refused || entry.projectInPath) continue;
    // issue 17: the name rule of domain/project-name.ts, the same on REST and GraphQL
    for (const bad of ['acme', 'acme/demo/extra', '/demo', 'acme/', 'acme/ x', 'acme/..', 'acme/a\u0000b', LONG]) {
      const request = entry.request!(bad);
      const named =
        JSON.stringify(request.body ?? '').includes(JSON.stringify(bad)) ||
        request.url.includes(encodeURIComponent(bad)) ||
        request.raw?.payload.includes(`\r\n\r\n${bad}\r\n`);
      if (!named) continue;
      const res = await send(h, route, request, { authorization: basicAuth(h.aliceKey) });
      if (res.statusCode !== 400 || errorMessage(res) === undefined)
        failures.push(describeResponse(route.method, request.url, res));
    }
  }
  assert.deepEqual(failures, []);
});
