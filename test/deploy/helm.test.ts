/**
 * Issue 36: the Helm chart (deploy/helm/heddle). No cluster can run here, so the chart is checked
 * the way a reviewer would: `helm lint` and docs/deploy.md's `deploy-helm` snippet run as printed,
 * default and production values rendered and validated with `kubernetes-validate --strict` for a
 * current Kubernetes, and the rendered objects read back: probes on /health, a non-root and
 * read-only container, secrets only by reference, the migration Job and PodDisruptionBudget of
 * production, and the chart refusing what cannot work (several SQLite nodes, a secret in `env`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { docSnippets, snippet } from '../clients/helpers/readme-snippets.js';
import { REPO_ROOT } from '../helpers/server-process.js';
import { ensureHelm, ensureKubeValidate, HELM_DIR, KUBE_VERSION, VALIDATE_PYTHON } from './helpers/helm.js';
import { run } from './helpers/run.js';

const CHART = 'deploy/helm/heddle';
const PRODUCTION = `${CHART}/values-production.yaml`;

type Manifest = { kind: string; metadata: { name: string; annotations?: Record<string, string> }; [key: string]: any };

async function helm(args: string[]): Promise<string> {
  return (await run(path.join(HELM_DIR, 'helm'), args, { cwd: REPO_ROOT })).stdout;
}

async function render(...args: string[]): Promise<string> {
  return helm(['template', 'heddle', CHART, ...args]);
}

/** The YAML documents as objects (PyYAML from the validator's virtualenv). */
async function parse(yamlText: string): Promise<Manifest[]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-helm-')), 'out.yaml');
  fs.writeFileSync(file, yamlText);
  const code = 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))';
  const out = await run(VALIDATE_PYTHON, ['-c', code, file]);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return JSON.parse(out.stdout) as Manifest[];
}

function one(docs: Manifest[], kind: string): Manifest {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `one ${kind} in ${docs.map((d) => d.kind).join(', ')}`);
  return found[0]!;
}

/** Checks shared by every rendering: probes, security context, resources, secrets by reference. */
function checkDeployment(docs: Manifest[]): Manifest {
  const deployment = one(docs, 'Deployment');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
    assert.deepEqual(container[probe].httpGet, { path: '/health', port: 'probe' }, probe);
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(pod.securityContext.runAsUser, 10001);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
  assert.ok(container.resources.requests.memory && container.resources.limits.memory, 'resources set');
  const admin = container.env.find((e: any) => e.name === 'HEDDLE_ADMIN_KEY');
  assert.ok(admin?.valueFrom?.secretKeyRef, 'the admin key comes from a Secret');
  for (const e of container.env) assert.equal(e.value, undefined, `${e.name} is a reference, not a value`);
  const config = one(docs, 'ConfigMap').data as Record<string, string>;
  for (const name of Object.keys(config))
    assert.doesNotMatch(
      name,
      /^HEDDLE_(ADMIN_KEY|DATABASE_URL|DATABASE_READ_URLS|SECRET_.*)$|PASSWORD/,
      `${name} is not in the ConfigMap`,
    );
  return deployment;
}

test('the Helm chart: lint, render, validate, and what the manifests say', { timeout: 30 * 60_000 }, async (t) => {
  const [, validate] = await Promise.all([ensureHelm(), ensureKubeValidate()]);
  const env = { PATH: `${HELM_DIR}:${process.env.PATH}` };

  let production = '';
  await t.test('docs/deploy.md deploy-helm snippet as printed: lint passes, production values render', async () => {
    const out = await run('bash', ['-euo', 'pipefail', '-c', snippet(docSnippets(), 'deploy-helm').code], {
      cwd: REPO_ROOT,
      env,
    });
    assert.match(out.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    production = out.stdout.slice(out.stdout.indexOf('---'));
    assert.equal(production, await render('-f', PRODUCTION));
    await helm(['lint', '--strict', CHART, '-f', PRODUCTION]);
  });

  const defaults = await render();
  await t.test(`kubernetes-validate --strict for Kubernetes ${KUBE_VERSION}, default and production`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-helm-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'default.yaml'), defaults);
    fs.writeFileSync(path.join(dir, 'production.yaml'), production);
    const out = await run(validate, ['-k', KUBE_VERSION, '--strict', 'default.yaml', 'production.yaml'], { cwd: dir });
    const passed = out.stdout.split('\n').filter((l) => / passed for resource /.test(l));
    assert.equal(passed.length, (await parse(defaults)).length + (await parse(production)).length, out.stdout);
  });

  await t.test('default values: one SQLite node on a kept PVC, a generated admin key in the chart Secret', async () => {
    const docs = await parse(defaults);
    const deployment = checkDeployment(docs);
    assert.equal(deployment.spec.replicas, 1);
    assert.equal(deployment.spec.strategy.type, 'Recreate');
    assert.equal(one(docs, 'PersistentVolumeClaim').metadata.annotations?.['helm.sh/resource-policy'], 'keep');
    const secret = one(docs, 'Secret');
    assert.match(Buffer.from(secret.data['admin-key'], 'base64').toString(), /^[A-Za-z0-9]{40}$/);
    assert.equal(secret.data['database-url'], undefined);
    assert.deepEqual(
      docs.map((d) => d.kind).filter((k) => ['Job', 'Ingress', 'PodDisruptionBudget'].includes(k)),
      [],
    );
  });

  await t.test('production values: three PostgreSQL nodes, existing Secret, migration Job, PDB, Ingress', async () => {
    const docs = await parse(production);
    const deployment = checkDeployment(docs);
    assert.equal(deployment.spec.replicas, 3);
    const env = deployment.spec.template.spec.containers[0].env as any[];
    assert.deepEqual(env.find((e) => e.name === 'HEDDLE_DATABASE_URL').valueFrom.secretKeyRef, {
      name: 'heddle-db',
      key: 'database-url',
    });
    assert.ok(!docs.some((d) => d.kind === 'Secret'), 'no Secret rendered: the existing one is used');
    assert.ok(!docs.some((d) => d.kind === 'StatefulSet' || /postgres/i.test(d.metadata.name)), 'no bundled database');
    const job = one(docs, 'Job');
    assert.deepEqual(job.metadata.annotations?.['helm.sh/hook'], 'pre-install,pre-upgrade');
    assert.deepEqual(job.spec.template.spec.containers[0].args, ['db', 'migrate']);
    assert.equal(job.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem, true);
    assert.equal(one(docs, 'PodDisruptionBudget').spec.maxUnavailable, 1);
    assert.equal(one(docs, 'Ingress').spec.rules[0].http.paths[0].backend.service.name, 'heddle');
  });

  await t.test('no secret in plain values: a URL given by value lands only in the Secret, base64', async () => {
    for (const file of ['values.yaml', 'values-production.yaml']) {
      // the values, not the comments (which show a placeholder URL for kubectl create secret)
      const text = fs
        .readFileSync(path.join(REPO_ROOT, CHART, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*#/.test(line))
        .join('\n');
      assert.doesNotMatch(text, /postgres(ql)?:\/\/[^\s'"]*:[^\s'"@]+@/, `${file} holds no database password`);
      assert.doesNotMatch(text, /\b[0-9a-f]{20,}\b/, `${file} holds no key`);
    }
    const url = 'postgres://heddle:s3cret-pw@db.internal:5432/heddle';
    const text = await render('--set', `database.url=${url}`, '--set', 'replicaCount=2');
    assert.ok(!text.includes('s3cret-pw'), 'the password never appears in plain text');
    const docs = await parse(text);
    checkDeployment(docs);
    assert.equal(Buffer.from(one(docs, 'Secret').data['database-url'], 'base64').toString(), url);
  });

  await t.test('the chart refuses several SQLite nodes, a secret in env, and a hook without a Secret', async () => {
    await assert.rejects(render('--set', 'replicaCount=2'), /replicaCount > 1 needs PostgreSQL/);
    await assert.rejects(render('--set', 'env.HEDDLE_ADMIN_KEY=x'), /env\.HEDDLE_ADMIN_KEY looks like a secret/);
    await assert.rejects(
      render('--set', 'migration.enabled=true', '--set', 'database.url=postgres://h/db'),
      /migration\.enabled needs database\.existingSecret/,
    );
  });
});
