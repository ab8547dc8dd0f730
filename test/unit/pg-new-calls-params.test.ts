import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeParts } from '../../src/store/postgres/call-merge.js';
import { newCallsParams } from '../../src/store/postgres/rollup-writes.js';
import type { CallPart } from '../../src/store/types.js';
import { end, start } from '../store/contract/parts.js';

/**
 * The hour counters of PostgreSQL's new-calls statement (rollup-writes.ts newCallsParams): each
 * (project, `started_at / 3600000000` truncated) once, in key order, as `call_counts` keys them,
 * with the number of the batch's calls that start in it (the writer counts them since migration 031).
 */

const HOUR = 3_600_000_000;

test('the counters of a batch are its (project, hour) keys, each once, in key order, with their calls', () => {
  let s = 7;
  const random = (): number => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 20; round += 1) {
    const parts: CallPart[] = [];
    for (let i = 0; i < 80; i += 1) {
      const project = ['b/two', 'a/one', 'a/one-', 'c'][Math.floor(random() * 4)]!;
      const startedAt = Math.floor((random() - 0.2) * 30 * HOUR);
      parts.push(start(project, `id${i}`, { started_at: startedAt }));
      if (random() < 0.5) parts.push(end(project, `id${i}`, { ended_at: startedAt + 1000 }));
    }
    const expected = new Map<string, [string, number, number]>();
    for (const p of parts)
      if (p.kind === 'start') {
        const bucket = (p.started_at - (p.started_at % HOUR)) / HOUR;
        const key = `${p.project_id}\u0000${bucket}`;
        const known = expected.get(key);
        if (known) known[2] += 1;
        else expected.set(key, [p.project_id, bucket, 1]);
      }
    const keys = [...expected.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    const { values } = newCallsParams(mergeParts(parts));
    assert.deepEqual(values.slice(3), [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2])]);
  }
});
