import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/domain/ids.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createTestDatabase, ensurePostgres, isCi } from '../helpers/postgres.js';
import { job, model } from './contract/training-rows.js';

/**
 * Issue 19: a lease reads its candidates without a lock and then locks one of them by key with
 * `SKIP LOCKED` (a locking scan across projects cannot run on Citus). Several stores on one
 * database stand for several nodes: under contention no job is leased twice, every job is leased
 * (none starves), and the training queue still takes each model's jobs in order, one at a time.
 */

const NODES = 3;
const LOOPS_PER_NODE = 4;

let stores: PostgresStore[] = [];
let release: (() => Promise<void>) | null = null;

before(async () => {
  if ((await ensurePostgres()) === null) {
    if (isCi()) throw new Error('PostgreSQL is required with CI=true');
    return;
  }
  const database = await createTestDatabase();
  release = database.release;
  stores = Array.from({ length: NODES }, () => new PostgresStore({ url: database.url }));
  await stores[0]!.migrate();
});

after(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await release?.();
});

/** Runs `work` on every loop of every node until each loop has seen `idleRounds` empty leases in a row. */
async function everyLoop(work: (store: PostgresStore, owner: string) => Promise<boolean>, idleRounds = 3) {
  await Promise.all(
    stores.flatMap((store, node) =>
      Array.from({ length: LOOPS_PER_NODE }, async (_, loop) => {
        for (let idle = 0; idle < idleRounds;) idle = (await work(store, `n${node}-l${loop}`)) ? 0 : idle + 1;
      }),
    ),
  );
}

test('background jobs: many nodes lease every job of many projects exactly once', async (t) => {
  if (stores.length === 0) return t.skip('PostgreSQL is not available');
  const kind = `concurrency_${process.pid}`;
  const jobs = Array.from({ length: 120 }, (_, i) => ({
    project_id: `acme/p${i % 12}`,
    id: uuidv7(),
    kind,
    input: '{}',
    created_by: 'u',
    created_at: 1000 + i,
    max_attempts: 3,
  }));
  await stores[0]!.jobs.enqueue(jobs);
  const leased: string[] = [];
  await everyLoop(async (store, owner) => {
    const job = await store.jobs.lease({ owner, now: 5000, leaseMicros: 60_000_000, kinds: [kind] });
    if (job === null) return false;
    leased.push(job.id);
    const outcome = await store.jobs.finish(job.project_id, job.id, job.fencing_token, null, 6000);
    assert.equal(outcome.ok, true);
    return true;
  });
  assert.equal(leased.length, jobs.length, 'each job leased once');
  assert.deepEqual([...leased].sort(), jobs.map((j) => j.id).sort());
  for (const j of jobs) assert.equal((await stores[0]!.jobs.get(j.project_id, j.id))?.status, 'succeeded');
});

test("training jobs: many nodes lease every job once, each model's jobs in order", async (t) => {
  if (stores.length === 0) return t.skip('PostgreSQL is not available');
  const base = `test/concurrency-${process.pid}`;
  const order = new Map<string, string[]>();
  for (let m = 0; m < 8; m += 1) {
    const created = await stores[0]!.training.createModel(model(`acme/t${m % 4}`, base, `m${m}`));
    const ids: string[] = [];
    for (let k = 0; k < 4; k += 1) {
      const queued = job(created.model, 100 + k);
      await stores[0]!.training.createJob(queued);
      ids.push(queued.id);
    }
    order.set(created.model.id, ids);
  }
  const leasedByModel = new Map<string, string[]>();
  await everyLoop(async (store, owner) => {
    const leased = await store.training.leaseJob({
      owner,
      trainer: 'test',
      now: 1000,
      leaseMicros: 60_000_000,
      filter: { include: [base], exclude: [] },
    });
    if (leased === null) return false;
    const { job } = leased;
    leasedByModel.set(job.model_id, [...(leasedByModel.get(job.model_id) ?? []), job.id]);
    const done = await store.training.completeJob(job.project_id, job.id, job.fencing_token, {
      now: 2000,
      eventId: uuidv7(),
      checkpointId: uuidv7(),
      checkpoint: Uint8Array.from([1]),
      metrics: { loss: 0 },
      numGradientSteps: 1,
    });
    assert.equal(done.ok, true);
    return true;
  });
  assert.deepEqual(leasedByModel, order, 'every job leased once, in each model\u2019s order');
});
