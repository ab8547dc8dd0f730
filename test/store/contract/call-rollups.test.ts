import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallStatsReq } from '../../../src/schemas/calls-stats.js';
import { CallStatsService } from '../../../src/services/call-stats-service.js';
import { ProjectAccess } from '../../../src/services/project-access.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, start } from './parts.js';
import type { PriceLookup } from '../../../src/services/price-lookup.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { ADMIN, compareAll, HOUR, PRICE_A, PRICES, randomParts, rng, T0, writeRandom } from './rollup-fixture.js';
import type { CallPart } from '../../../src/store/types.js';

/**
 * The call roll-up (docs/call-rollups.md) on every adapter: after randomised writes (starts re-sent
 * with other times and ops, ends before starts and re-sent, renames), deletions with their
 * descendants and retention, every `/calls/stats` request the roll-up answers gives the scan's
 * answer: counts and sums equal, costs equal to 1e-9, latency percentiles within
 * LATENCY_RELATIVE_ERROR (rollup-fixture.ts). Requests it cannot answer exactly go to the scan.
 */

forEachAdapter('call roll-up', (store) => {
  test(
    'randomised writes, deletions and retention: the roll-up gives the scan answer',
    guard(async () => {
      const projectId = freshProject();
      const ids = await writeRandom(store(), projectId, 7, 400);
      const other = freshProject();
      await writeRandom(store(), other, 8, 50);
      assert.ok((await compareAll(store(), projectId)) > 0);
      // deletions take descendants along; a second deletion of the same ids changes nothing
      await store().calls.deleteCascade(projectId, [ids[3]!, ids[40]!, ids[77]!, 'never-written'], T0 + 100 * HOUR);
      await store().calls.deleteCascade(projectId, [ids[3]!], T0 + 101 * HOUR);
      await compareAll(store(), projectId);
      // a start re-sent for a deleted call leaves it deleted (and uncounted)
      await store().calls.write([start(projectId, ids[3]!, { started_at: T0 + 2 * HOUR })]);
      await store().retention.deleteExpiredBatch(projectId, T0 + 20 * HOUR, { batchRows: 25 });
      await store().retention.deleteExpiredBatch(projectId, T0 + 20 * HOUR);
      await compareAll(store(), projectId);
      await compareAll(store(), other);
    }),
  );

  test(
    'starts and ends of the same new calls written at once, in separate writes, are each counted once',
    guard(async () => {
      const projectId = freshProject();
      const usage = JSON.stringify({
        usage: { 'gpt-a': { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } },
      });
      for (let round = 0; round < 5; round += 1) {
        const writes: Promise<void>[] = [];
        for (let i = 0; i < 60; i += 1) {
          const id = `k${round}-${i}`;
          const at = T0 + ((round * 60 + i) % 70) * HOUR + 1000;
          writes.push(store().calls.write([start(projectId, id, { started_at: at })]));
          writes.push(store().calls.write([end(projectId, id, { ended_at: at + i * 1000, summary: usage })]));
          if (i % 3 === 0) writes.push(store().calls.write([start(projectId, id, { started_at: at })]));
        }
        await Promise.all(writes);
      }
      assert.ok((await compareAll(store(), projectId)) > 0);
    }),
  );

  test(
    'a start and its end in one write for calls stored, new, deleted or started twice in the write',
    guard(async () => {
      const projectId = freshProject();
      const usage = JSON.stringify({ usage: { 'gpt-a': { prompt_tokens: 5, completion_tokens: 1 } } });
      const at = (i: number): number => T0 + (i % 4) * HOUR + i * 1000;
      // stored before: running, finished, deleted
      await store().calls.write([
        start(projectId, 'running', { started_at: at(1) }),
        start(projectId, 'finished', { started_at: at(2), op_name: 'plain-op' }),
        end(projectId, 'finished', { ended_at: at(2) + 9000, exception: 'boom' }),
        start(projectId, 'deleted', { started_at: at(3) }),
      ]);
      await store().calls.deleteCascade(projectId, ['deleted'], T0 + 50 * HOUR);
      // the pairs below find a stored row (the insert alone changes nothing), none, or a deleted one
      await store().calls.write([
        start(projectId, 'running', { started_at: at(5) + 2 * HOUR }),
        end(projectId, 'running', { ended_at: at(5) + 2 * HOUR + 3000, summary: usage }),
        start(projectId, 'finished', { started_at: at(6) }),
        end(projectId, 'finished', { ended_at: at(6) + 250_000 }),
        start(projectId, 'deleted', { started_at: at(7) }),
        end(projectId, 'deleted', { ended_at: at(7) + 1000 }),
        start(projectId, 'new', { started_at: at(8) }),
        end(projectId, 'new', { ended_at: at(8) + 17_000, summary: usage }),
        start(projectId, 'twice', { started_at: at(9) }),
        start(projectId, 'twice', { started_at: at(10) + HOUR, op_name: 'plain-op' }),
        end(projectId, 'twice', { ended_at: at(10) + HOUR + 4000 }),
        end(projectId, 'late', { ended_at: at(11) + 5000 }),
        start(projectId, 'late', { started_at: at(11) }),
      ]);
      assert.ok((await compareAll(store(), projectId)) > 0);
      const count = await store().calls.count({ project_id: projectId });
      const scanned = await store().calls.count({ project_id: projectId, started_from: 0 });
      assert.equal(Number(count.count), 5);
      assert.equal(Number(scanned.count), 5);
    }),
  );

  test(
    'a write of starts among which some calls are stored already counts each call once',
    guard(async () => {
      // PostgreSQL writes a batch of starts as new calls in one statement and, when one of them is
      // stored, writes the whole batch again as updates (rollup-writes.ts newCallsSql)
      const projectId = freshProject();
      const usage = JSON.stringify({
        usage: { 'gpt-a': { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } },
      });
      await store().calls.write([
        start(projectId, 'b1', { started_at: T0 + 1000 }),
        end(projectId, 'b1', { ended_at: T0 + 9000, summary: usage }),
        start(projectId, 'b3', { started_at: T0 + 3000 }),
      ]);
      await store().calls.write([
        start(projectId, 'b0', { started_at: T0 + HOUR }),
        end(projectId, 'b0', { ended_at: T0 + HOUR + 4000, summary: usage }),
        start(projectId, 'b1', { started_at: T0 + 2 * HOUR, op_name: 'weave:///acme/demo/op/other:def' }),
        start(projectId, 'b2', { started_at: T0 + 3 * HOUR }),
        start(projectId, 'b3', { started_at: T0 + 3000 }),
      ]);
      assert.ok((await compareAll(store(), projectId)) > 0);
      const again = [start(projectId, 'b4', { started_at: T0 + 5000 }), start(projectId, 'b0', { started_at: T0 })];
      await Promise.all([store().calls.write(again), store().calls.write(again.slice().reverse())]);
      assert.ok((await compareAll(store(), projectId)) > 0);
    }),
  );

  test(
    'a failing write and a deletion among writes committed together leave the roll-up exact',
    guard(async () => {
      const projectId = freshProject();
      const at = (i: number): number => T0 + (i % 5) * HOUR + i * 1000;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store().calls.write([start(projectId, `d${i}`, { started_at: at(i) })])),
      );
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i += 1) {
        writes.push(store().calls.write([end(projectId, `d${i}`, { ended_at: at(i) + 5000 })]));
        // a batch that fails part-way (no project): none of its parts counts
        if (i % 7 === 0) {
          const broken = { ...start(projectId, `x${i}`), project_id: null as unknown as string };
          const failing = store().calls.write([start(projectId, `w${i}`, { started_at: at(i) }), broken]);
          writes.push(assert.rejects(failing));
        }
        if (i % 6 === 0) writes.push(store().calls.deleteCascade(projectId, [`d${i}`], T0 + 50 * HOUR));
      }
      await Promise.all(writes);
      assert.ok((await compareAll(store(), projectId)) > 0);
    }),
  );

  test(
    'writes spanning projects, with ends carrying their parsed summary or not, keep each project exact',
    guard(async () => {
      // PostgreSQL binds one project's pending roll-up row as texts and several as arrays
      // (rollup-pending.ts pendingRows); call-service.ts hands each end its parsed summary
      const random = rng(41);
      const projects = [freshProject(), freshProject(), freshProject()];
      const queues = projects.map((p) => randomParts(p, 120, random).parts);
      const parsed = (part: CallPart): CallPart =>
        part.kind === 'end' && random() < 0.5 ? { ...part, parsed_summary: JSON.parse(part.summary) } : part;
      const writes: Promise<void>[] = [];
      while (queues.some((q) => q.length > 0)) {
        // one project's parts, or several projects' parts in one write
        const from = random() < 0.5 ? [queues[Math.floor(random() * queues.length)]!] : queues;
        const parts = from.flatMap((q) => q.splice(0, 1 + Math.floor(random() * 12))).map(parsed);
        if (parts.length > 0) writes.push(store().calls.write(parts));
        if (writes.length >= 4) await Promise.all(writes.splice(0));
      }
      await Promise.all(writes);
      for (const p of projects) assert.ok((await compareAll(store(), p)) > 0);
    }),
  );

  test(
    'requests the roll-up cannot answer exactly go to the scan',
    guard(async () => {
      const projectId = freshProject();
      await writeRandom(store(), projectId, 11, 30);
      const service = new CallStatsService(store(), new ProjectAccess(store()), PRICES);
      const base: CallStatsReq = {
        project_id: projectId,
        start: new Date(T0 / 1000).toISOString(),
        end: new Date((T0 + 24 * HOUR) / 1000).toISOString(),
        granularity: 3600,
        call_metrics: [{ metric: 'call_count' }],
        usage_metrics: null,
        filter: null,
      };
      assert.ok(await service.callStatsVia(ADMIN, base, 'rollup'));
      const refused: Partial<CallStatsReq>[] = [
        { start: new Date((T0 + 60_000_000) / 1000).toISOString() },
        { granularity: 1800 },
        { call_metrics: [{ metric: 'latency_ms', aggregations: ['max'] }] },
        { call_metrics: [{ metric: 'error_count', percentiles: [50] }] },
        { usage_metrics: [{ metric: 'input_tokens', aggregations: ['avg'] }] },
        { filter: { trace_roots_only: true } },
        { filter: { op_names: ['plain-op'], trace_ids: ['t-c0001'] } },
      ];
      for (const change of refused)
        assert.equal(await service.callStatsVia(ADMIN, { ...base, ...change }, 'rollup'), null, JSON.stringify(change));
      // a price that takes effect inside a bucket: costs need the scan; at a bucket boundary they do not
      const priceAt = (effective: number): PriceLookup => ({
        forProject: async () => {
          const price = { ...PRICE_A, effective_date: effective };
          return {
            find: (model: string, at: number) => (model === 'gpt-a' ? (at >= effective ? price : PRICE_A) : null),
          };
        },
      });
      const costs: CallStatsReq = { ...base, usage_metrics: [{ metric: 'total_cost' }] };
      const usage = JSON.stringify({ usage: { 'gpt-a': { prompt_tokens: 10, completion_tokens: 2 } } });
      const at = T0 + 5 * HOUR + 600_000_000;
      await store().calls.write([
        start(projectId, 'priced', { started_at: at }),
        end(projectId, 'priced', { ended_at: at + 1_000_000, summary: usage }),
      ]);
      const inside = new CallStatsService(store(), new ProjectAccess(store()), priceAt(T0 + 5 * HOUR + 1_200_000_000));
      assert.equal(await inside.callStatsVia(ADMIN, costs, 'rollup'), null);
      assert.ok(await inside.callStatsVia(ADMIN, base, 'rollup'));
      const boundary = new CallStatsService(store(), new ProjectAccess(store()), priceAt(T0 + 5 * HOUR));
      assert.ok(await boundary.callStatsVia(ADMIN, costs, 'rollup'));
      // auto answers latency percentiles over few calls by the scan (exact)
      const pct: CallStatsReq = { ...base, call_metrics: [{ metric: 'latency_ms', percentiles: [50] }] };
      assert.equal((await service.callStatsVia(ADMIN, pct, 'auto'))!.path, 'scan');
      assert.equal((await service.callStatsVia(ADMIN, base, 'auto'))!.path, 'rollup');
    }),
  );

  test(
    'PostgreSQL: roll-up changes give the same answers pending, folded while writes go on, and folded',
    guard(async () => {
      const pg = store();
      // only PostgreSQL appends roll-up changes (migration 023); SQLite's are the tests above
      if (!(pg instanceof PostgresStore)) return;
      const projectId = freshProject();
      let writing = true;
      const folds = (async () => {
        for (let n = 0; writing || n === 0; n += 1) {
          await pg.foldRollupChanges(n % 2 === 0 ? null : projectId);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const ids = await writeRandom(pg, projectId, 31, 300).finally(() => (writing = false));
      await folds;
      assert.ok((await compareAll(pg, projectId)) > 0);
      // changes written after the last fold are read pending, then folded
      await pg.calls.write([end(projectId, ids[7]!, { ended_at: T0 + 3 * HOUR, exception: 'late' })]);
      await pg.calls.deleteCascade(projectId, [ids[11]!], T0 + 90 * HOUR);
      await writeRandom(pg, projectId, 32, 40);
      const pending = await compareAll(pg, projectId);
      await pg.foldRollupChanges(projectId);
      assert.equal(await compareAll(pg, projectId), pending);
    }),
  );
});
