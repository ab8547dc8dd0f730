import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { CallPart } from '../../src/store/types.js';

const execFileP = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Runs `heddle db distribute` on the database at `url`, as an operator does (the CLI from the
 * sources, so it needs no build); its output when it fails.
 */
export async function runDbDistribute(url: string): Promise<{ stdout: string; stderr: string }> {
  return execFileP(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), 'db', 'distribute'], {
    cwd: ROOT,
    env: { ...process.env, HEDDLE_DATABASE_URL: url, HEDDLE_LOG_LEVEL: 'silent' },
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** A start and an end of call `id` of `project` (the shapes the writers get from the services). */
export function callParts(project: string, id: string, startedAt: number, text: string): CallPart[] {
  return [
    {
      kind: 'start',
      project_id: project,
      id,
      op_name: `weave:///${project}/op/step:v0`,
      op_display_name: null,
      display_name: null,
      trace_id: `t-${id}`,
      parent_id: null,
      thread_id: null,
      turn_id: null,
      wb_user_id: 'seed-user',
      wb_run_id: null,
      started_at: startedAt,
      wb_run_step: null,
      attributes: '{}',
      inputs: JSON.stringify({ prompt: text }),
      otel_dump: null,
    },
    {
      kind: 'end',
      project_id: project,
      id,
      ended_at: startedAt + 1_500,
      exception: null,
      output: JSON.stringify({ answer: `${text} done` }),
      summary: '{}',
      wb_run_step_end: null,
    },
  ] as CallPart[];
}

/**
 * What a team moving its single PostgreSQL onto Citus has: a migrated Heddle database holding
 * data, then distributed by `heddle db distribute`. Writes calls of two projects (starts, ends in a
 * later write, a deletion), folds the roll-up, indexes their texts, then distributes.
 */
export async function writeThenDistribute(url: string): Promise<void> {
  const t = Date.now();
  const store = new PostgresStore({ url });
  try {
    await store.migrate();
    const t0 = 1_700_000_000_000_000;
    for (const project of ['seed/one', 'seed/two']) {
      const parts = Array.from({ length: 6 }, (_, i) => callParts(project, `c${i}`, t0 + i * 1_000_000, `seed ${i}`));
      await store.calls.write(parts.map((p) => p[0]!));
      await store.calls.write(parts.map((p) => p[1]!));
      await store.calls.deleteCascade(project, ['c5'], t0 + 9_000_000);
    }
    await store.foldRollupChanges();
    while ((await store.callText.step(500)).project !== null);
  } finally {
    await store.close();
  }
  const t1 = Date.now();
  await runDbDistribute(url);
  if (process.env.HEDDLE_TEST_CITUS_TIMING)
    process.stderr.write(`write ${t1 - t} ms, distribute ${Date.now() - t1} ms\n`);
}
