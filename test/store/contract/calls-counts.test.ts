import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, start } from './parts.js';

/**
 * The count of all calls of a project comes from per-hour counters kept by triggers (migration 016);
 * every case compares it with the same count forced through the scan of `calls` (a time range that
 * holds every call), so the two paths must agree after each kind of write.
 */
const HOUR = 3_600_000_000;
const T0 = 1_700_000_000_000_000;

forEachAdapter('calls count of a whole project', (store) => {
  const counts = async (s: TraceStore, project: string, extra: Omit<CallsQuery, 'project_id'> = {}) => {
    const counter = (await s.calls.count({ project_id: project, ...extra })).count;
    const scanned = (await s.calls.count({ project_id: project, started_from: 0, ...extra })).count;
    return { counter: Number(counter), scanned: Number(scanned) };
  };
  const agree = async (s: TraceStore, project: string, expected: number) => {
    assert.deepEqual(await counts(s, project), { counter: expected, scanned: expected });
  };

  test(
    'starts, ends before starts, end-only calls and several hours',
    guard(async () => {
      const s = store();
      const project = freshProject();
      await agree(s, project, 0);
      await s.calls.write([
        start(project, 'a', { started_at: T0 }),
        start(project, 'b', { started_at: T0 + 2 * HOUR }),
        end(project, 'a'),
      ]);
      await agree(s, project, 2);
      // an end without its start is not a visible call until the start comes
      await s.calls.write([end(project, 'c')]);
      await agree(s, project, 2);
      await s.calls.write([start(project, 'c', { started_at: T0 + 5 * HOUR })]);
      await agree(s, project, 3);
      // a start and its end in one write, and a start sent again (its time moves to another hour)
      await s.calls.write([start(project, 'd', { started_at: T0 + HOUR }), end(project, 'd')]);
      await s.calls.write([start(project, 'a', { started_at: T0 + 9 * HOUR })]);
      await agree(s, project, 4);
    }),
  );

  test(
    'deleted calls leave the count; other projects are apart',
    guard(async () => {
      const s = store();
      const project = freshProject();
      const other = freshProject();
      await s.calls.write([
        start(project, 'root', { started_at: T0 }),
        start(project, 'child', { started_at: T0 + 10, trace_id: 'trace-root', parent_id: 'root' }),
        start(project, 'alone', { started_at: T0 + 3 * HOUR }),
        start(other, 'x', { started_at: T0 }),
      ]);
      await agree(s, project, 3);
      await s.calls.deleteCascade(project, ['root'], T0 + 4 * HOUR);
      await agree(s, project, 1);
      await agree(s, other, 1);
      await s.projectData.deleteProject(project);
      await agree(s, project, 0);
      await agree(s, other, 1);
    }),
  );

  test(
    'a limit caps the count at limit + 1 (has_more)',
    guard(async () => {
      const s = store();
      const project = freshProject();
      await s.calls.write(Array.from({ length: 7 }, (_, i) => start(project, `c${i}`, { started_at: T0 + i * HOUR })));
      assert.deepEqual(await counts(s, project, { limit: 3 }), { counter: 4, scanned: 4 });
      assert.deepEqual(await counts(s, project, { limit: 10 }), { counter: 7, scanned: 7 });
      // filters that narrow nothing still come from the counters; those that narrow scan
      assert.equal((await s.calls.count({ project_id: project, filter: { op_names: [] } })).count, 7);
      assert.equal((await s.calls.count({ project_id: project, filter: { call_ids: ['c1', 'c2'] } })).count, 2);
    }),
  );

  test(
    'a project exported, deleted and imported again counts its calls once',
    guard(async () => {
      const s = store();
      const project = freshProject();
      await s.calls.write([
        start(project, 'a', { started_at: T0 }),
        start(project, 'b', { started_at: T0 + 3 * HOUR }),
        end(project, 'only-end'),
        start(project, 'gone', { started_at: T0 }),
      ]);
      await s.calls.deleteCascade(project, ['gone'], T0 + HOUR);
      const rows = [];
      for await (const row of s.projectData.exportRows(project)) rows.push(row);
      await s.projectData.deleteProject(project);
      await agree(s, project, 0);
      await s.projectData.importRows(
        project,
        (async function* () {
          yield* rows;
        })(),
      );
      await agree(s, project, 2);
    }),
  );
});
