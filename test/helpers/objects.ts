import assert from 'node:assert/strict';
import { PROJECT, type TestApp } from './app.js';

/**
 * Helpers for object tests. `createObject` posts the raw JSON text of `val` so number literals
 * (`1.0`, big integers) reach the server exactly as written.
 */
export async function createObject(
  h: TestApp,
  objectId: string,
  valJson: string,
  extra: Record<string, unknown> = {},
  key?: string | null,
): Promise<{ statusCode: number; body: Record<string, unknown> }> {
  const extraJson = Object.entries(extra)
    .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join('');
  const payload = `{"obj":{"project_id":${JSON.stringify(PROJECT)},"object_id":${JSON.stringify(objectId)},"val":${valJson}${extraJson}}}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const k = key === undefined ? h.aliceKey : key;
  if (k !== null) headers.authorization = `Basic ${Buffer.from(`api:${k}`).toString('base64')}`;
  const res = await h.app.inject({ method: 'POST', url: '/obj/create', headers, payload });
  return { statusCode: res.statusCode, body: res.json() as Record<string, unknown> };
}

/** Creates the object and returns its digest, failing the test unless the server answers 200. */
export async function createDigest(
  h: TestApp,
  objectId: string,
  valJson: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await createObject(h, objectId, valJson, extra);
  assert.equal(res.statusCode, 200, JSON.stringify(res.body));
  return res.body.digest as string;
}

export async function readObject(h: TestApp, objectId: string, digest: string, extra: Record<string, unknown> = {}) {
  const res = await h.post('/obj/read', { project_id: PROJECT, object_id: objectId, digest, ...extra });
  return { statusCode: res.statusCode, body: res.json() as Record<string, any>, raw: res.body };
}

export async function queryObjects(
  h: TestApp,
  body: Record<string, unknown> = {},
): Promise<Array<Record<string, any>>> {
  const res = await h.post('/objs/query', { project_id: PROJECT, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { objs: Array<Record<string, any>> }).objs;
}
