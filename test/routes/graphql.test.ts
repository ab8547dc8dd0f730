import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** The documents weave 0.54.0 sends, as gql prints them (see docs/python-client.md). */
const DEFAULT_ENTITY =
  'query DefaultEntity {\n  viewer {\n    username\n    defaultEntity {\n      name\n    }\n  }\n}';
const PROJECT_QUERY =
  'query Project($name: String!, $entityName: String!) {\n  project(name: $name, entityName: $entityName) {\n    name\n  }\n}';
const UPSERT_MODEL = `mutation UpsertModel($name: String!, $id: String, $entity: String!, $description: String, $repo: String) {
  upsertModel(
    input: {id: $id, name: $name, entityName: $entity, description: $description, repo: $repo}
  ) {
    model {
      name
      description
    }
  }
}`;
const ENTITY_ACCESS =
  'query Entity($entityName: String!) { viewer { username } entity(name: $entityName) { readOnly } }';
const SERVER_INFO = 'query ServerInfo { serverInfo { frontendHost } }';
const ARTIFACT_MANIFEST = `query ArtifactManifest($entityName: String!, $projectName: String!, $name: String!) {
  project(name: $projectName, entityName: $entityName) { artifact(name: $name) { currentManifest { id file { directUrl } } } }
}`;

interface GqlBody {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string } }>;
}

async function gql(
  h: TestApp,
  query: string,
  variables?: Record<string, unknown>,
  key?: string | null,
): Promise<GqlBody> {
  const res = await h.post('/graphql', variables === undefined ? { query } : { query, variables }, key);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /application\/json/);
  return res.json() as GqlBody;
}

const upsert = (h: TestApp, entity: string, name: string, key?: string) =>
  gql(h, UPSERT_MODEL, { name, entity, description: null }, key);

test('viewer answers the DefaultEntity query with the key owner and its entity', async (t) => {
  const h = await buildTestApp(t);
  assert.deepEqual(await gql(h, DEFAULT_ENTITY), {
    data: { viewer: { username: 'alice', defaultEntity: { name: 'acme' } } },
  });
  assert.deepEqual(await gql(h, DEFAULT_ENTITY, undefined, h.bobKey), {
    data: { viewer: { username: 'bob', defaultEntity: { name: 'other' } } },
  });
  const full = await gql(h, '{ viewer { id name admin } }');
  assert.equal(full.data?.viewer.name, 'alice');
  assert.equal(full.data?.viewer.admin, false);
  assert.equal(typeof full.data?.viewer.id, 'string');
});

test('project is null until upsertModel creates it; a second upsert changes nothing', async (t) => {
  const h = await buildTestApp(t);
  assert.deepEqual(await gql(h, PROJECT_QUERY, { entityName: 'acme', name: 'fresh' }), { data: { project: null } });
  assert.deepEqual(await upsert(h, 'acme', 'fresh'), {
    data: { upsertModel: { model: { name: 'fresh', description: null } } },
  });
  assert.deepEqual(await gql(h, PROJECT_QUERY, { entityName: 'acme', name: 'fresh' }), {
    data: { project: { name: 'fresh' } },
  });
  const again = await gql(
    h,
    'mutation { upsertModel(input: {name: "fresh", entityName: "acme"}) { inserted project { name entityName } } }',
  );
  assert.deepEqual(again.data?.upsertModel, { inserted: false, project: { name: 'fresh', entityName: 'acme' } });
  const record = await h.store.auth.findProject('acme/fresh');
  assert.equal(record?.entity, 'acme');
});

test('upsertModel without entityName uses the caller default entity', async (t) => {
  const h = await buildTestApp(t);
  const res = await gql(
    h,
    'mutation { upsertModel(input: {name: "solo"}) { inserted model { name entityName entity { name readOnly } } } }',
  );
  assert.deepEqual(res.data?.upsertModel, {
    inserted: true,
    model: { name: 'solo', entityName: 'acme', entity: { name: 'acme', readOnly: false } },
  });
  assert.notEqual(await h.store.auth.findProject('acme/solo'), null);
});

test('tenancy: another entity cannot be created in, seen or probed', async (t) => {
  const h = await buildTestApp(t);
  await upsert(h, 'acme', 'secret');
  const denied = await upsert(h, 'acme', 'intrusion', h.bobKey);
  assert.deepEqual(denied.data, { upsertModel: null });
  assert.equal(denied.errors?.[0]!.extensions?.code, 'PERMISSION_ERROR');
  assert.deepEqual(denied.errors?.[0].path, ['upsertModel']);
  assert.equal(await h.store.auth.findProject('acme/intrusion'), null);
  // bob sees acme's existing project exactly as a missing one
  assert.deepEqual(await gql(h, PROJECT_QUERY, { entityName: 'acme', name: 'secret' }, h.bobKey), {
    data: { project: null },
  });
  assert.deepEqual(await gql(h, ENTITY_ACCESS, { entityName: 'acme' }, h.bobKey), {
    data: { viewer: { username: 'bob' }, entity: null },
  });
  assert.deepEqual(await gql(h, ENTITY_ACCESS, { entityName: 'acme' }), {
    data: { viewer: { username: 'alice' }, entity: { readOnly: false } },
  });
  const nested = await gql(h, '{ entity(name: "acme") { name isTeam project(name: "secret") { name } } }');
  assert.deepEqual(nested.data?.entity, { name: 'acme', isTeam: false, project: { name: 'secret' } });
});

test('an admin key reaches every existing entity and may create projects anywhere', async (t) => {
  const h = await buildTestApp(t);
  const { key: adminKey } = await h.app.services.auth.createKey({ entity: 'admin', username: 'root', admin: true });
  const created = await upsert(h, 'other', 'ops', adminKey);
  assert.deepEqual(created.data, { upsertModel: { model: { name: 'ops', description: null } } });
  assert.deepEqual(await gql(h, PROJECT_QUERY, { entityName: 'other', name: 'ops' }, adminKey), {
    data: { project: { name: 'ops' } },
  });
  assert.deepEqual(await gql(h, PROJECT_QUERY, { entityName: 'other', name: 'ops' }, h.bobKey), {
    data: { project: { name: 'ops' } },
  });
  assert.deepEqual(await gql(h, ENTITY_ACCESS, { entityName: 'acme' }, adminKey), {
    data: { viewer: { username: 'root' }, entity: { readOnly: false } },
  });
  assert.deepEqual((await gql(h, '{ entity(name: "nobody") { name } }', undefined, adminKey)).data, { entity: null });
  assert.deepEqual((await gql(h, '{ viewer { admin } }', undefined, adminKey)).data, { viewer: { admin: true } });
});

test('a created project shares its internal id with /service/projects_info', async (t) => {
  const h = await buildTestApp(t);
  await upsert(h, 'acme', 'linked');
  const res = await gql(
    h,
    '{ project(name: "linked", entityName: "acme") { id internalId createdAt entity { name } } }',
  );
  const info = await h.post('/service/projects_info', { project_ids: ['acme/linked'] });
  assert.equal(res.data?.project.internalId, info.json()[0].internal_project_id);
  assert.match(res.data?.project.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.equal(Buffer.from(res.data?.project.id, 'base64').toString('utf8'), 'Project:acme/linked');
  assert.deepEqual(res.data?.project.entity, { name: 'acme' });
});

test('invalid names are refused with BAD_USER_INPUT and nothing is created', async (t) => {
  const h = await buildTestApp(t);
  for (const name of ['a/b', '', ' padded', 'x'.repeat(129)]) {
    const res = await upsert(h, 'acme', name);
    assert.equal(res.errors?.[0]!.extensions?.code, 'BAD_USER_INPUT', name);
    assert.deepEqual(res.data, { upsertModel: null });
  }
  const noName = await gql(h, 'mutation { upsertModel(input: {entityName: "acme"}) { inserted } }');
  assert.equal(noName.errors?.[0]!.extensions?.code, 'BAD_USER_INPUT');
  assert.deepEqual(await gql(h, PROJECT_QUERY, { entityName: 'acme', name: 'a/b' }), { data: { project: null } });
});

test('serverInfo.frontendHost: HEDDLE_PUBLIC_URL, else the configured address, else the request origin', async (t) => {
  const configured = await buildTestApp(t, { HEDDLE_PUBLIC_URL: 'https://heddle.example.com/' });
  assert.deepEqual(await gql(configured, SERVER_INFO), {
    data: { serverInfo: { frontendHost: 'https://heddle.example.com' } },
  });
  const byAddress = await buildTestApp(t, { HEDDLE_HOST: '127.0.0.1', HEDDLE_PORT: '9123' });
  assert.deepEqual(await gql(byAddress, SERVER_INFO), {
    data: { serverInfo: { frontendHost: 'http://127.0.0.1:9123' } },
  });
  const ephemeral = await buildTestApp(t, { HEDDLE_PORT: '0' });
  const res = await ephemeral.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: {
      authorization: `Bearer ${ephemeral.aliceKey}`,
      host: 'heddle.internal:4321',
      'content-type': 'application/json',
    },
    payload: JSON.stringify({ query: SERVER_INFO }),
  });
  assert.deepEqual(res.json(), { data: { serverInfo: { frontendHost: 'http://heddle.internal:4321' } } });
});

test('artifact lookups validate and answer null (no W&B artifacts are stored)', async (t) => {
  const h = await buildTestApp(t);
  await upsert(h, 'acme', 'arts');
  assert.deepEqual(await gql(h, ARTIFACT_MANIFEST, { entityName: 'acme', projectName: 'arts', name: 'x:v0' }), {
    data: { project: { artifact: null } },
  });
  assert.deepEqual(await gql(h, 'query ($id: ID!) { artifact(id: $id) { id } }', { id: 'QXJ0aWZhY3Q6MQ==' }), {
    data: { artifact: null },
  });
});

test('errors come back in GraphQL form', async (t) => {
  const h = await buildTestApp(t);
  const syntax = await gql(h, '{ viewer { ');
  assert.equal(syntax.errors?.[0]!.extensions?.code, 'GRAPHQL_PARSE_FAILED');
  assert.equal(syntax.data, undefined);
  const unknown = await gql(h, '{ viewer { password } }');
  assert.equal(unknown.errors?.[0]!.extensions?.code, 'GRAPHQL_VALIDATION_FAILED');
  assert.match(unknown.errors?.[0].message ?? '', /password/);
  const missingVar = await gql(h, PROJECT_QUERY, { name: 'demo' });
  assert.match(missingVar.errors?.[0]!.message ?? '', /entityName/);
  assert.equal(missingVar.data, undefined);
  const twoOps = await h.post('/graphql', { query: `${DEFAULT_ENTITY}\n${SERVER_INFO}`, operationName: 'ServerInfo' });
  assert.equal(typeof twoOps.json().data.serverInfo.frontendHost, 'string');
});

test('malformed requests are 400 with an errors list; missing credentials are 401', async (t) => {
  const h = await buildTestApp(t);
  for (const body of [{}, { query: '' }, { query: 5 }, { query: '{ viewer { username } }', variables: [1] }, [1, 2]]) {
    const res = await h.post('/graphql', body);
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.equal(res.json().errors[0].extensions.code, 'BAD_REQUEST');
  }
  const anonymous = await h.post('/graphql', { query: DEFAULT_ENTITY }, null);
  assert.equal(anonymous.statusCode, 401);
  const wrongKey = await h.post('/graphql', { query: DEFAULT_ENTITY }, 'f'.repeat(40));
  assert.equal(wrongKey.statusCode, 401);
  assert.equal((await h.get('/graphql')).statusCode, 405);
});
