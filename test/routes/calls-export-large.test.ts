import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';
import type { CallPart } from '../../src/store/types.js';

/**
 * A large export streams (docs/export.md): 50,000 calls of about 2 KB each (over 100 MB of JSONL)
 * are downloaded over a real socket while the server's RSS is sampled; it must grow by far less
 * than the export. A server that collected the result would grow by at least its size.
 */

const CALLS = 50_000;
const BATCH = 1_000;
const T0 = Date.UTC(2025, 0, 1) * 1000;

async function seed(write: (parts: CallPart[]) => Promise<void>): Promise<void> {
  const padding = 'x'.repeat(2_000);
  for (let base = 0; base < CALLS; base += BATCH) {
    const parts: CallPart[] = [];
    for (let i = base; i < base + BATCH; i++) {
      const id = `call-${String(i).padStart(6, '0')}`;
      parts.push(
        {
          kind: 'start',
          project_id: PROJECT,
          id,
          op_name: 'chat',
          op_display_name: 'chat',
          display_name: null,
          trace_id: id,
          parent_id: null,
          thread_id: null,
          turn_id: null,
          started_at: T0 + i * 1000,
          attributes: '{}',
          inputs: JSON.stringify({ i, padding }),
          otel_dump: null,
          wb_user_id: 'u',
          wb_run_id: null,
          wb_run_step: null,
        },
        {
          kind: 'end',
          project_id: PROJECT,
          id,
          ended_at: T0 + i * 1000 + 500,
          exception: null,
          output: '"ok"',
          summary: '{}',
          wb_run_step_end: null,
        },
      );
    }
    await write(parts);
  }
}

// A collection every 40 ms keeps garbage of lines already sent from counting as growth (the export
// runs at 50+ MiB/s, so a rarer collection would let tens of MiB of garbage count).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

for (const format of ['jsonl', 'csv'] as const) {
  test(`a ${format} export of ${CALLS} calls streams with bounded memory`, { timeout: 600_000 }, async (t) => {
    const h = await buildTestApp(t);
    await seed((parts) => h.store.calls.write(parts));
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = h.app.server.address() as AddressInfo;
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    let ticks = 0;
    const sampler = setInterval(() => {
      if (++ticks % 2 === 0) gc();
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${port}/calls/export`, {
      method: 'POST',
      headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT, format }),
    });
    assert.equal(res.status, 200);
    let bytes = 0;
    let newlines = 0;
    const reader = res.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
      // indexOf, not a byte loop: a slow reader here would let the server's side pile up and count as growth
      const bytesOf = Buffer.from(chunk.value.buffer, chunk.value.byteOffset, chunk.value.byteLength);
      for (let at = bytesOf.indexOf(10); at !== -1; at = bytesOf.indexOf(10, at + 1)) newlines++;
    }
    clearInterval(sampler);
    const growth = peak - before;
    t.diagnostic(
      `${format}: ${(bytes / 2 ** 20).toFixed(1)} MiB in ${Date.now() - started} ms; RSS growth ${(growth / 2 ** 20).toFixed(1)} MiB`,
    );
    assert.equal(newlines, format === 'csv' ? CALLS + 1 : CALLS);
    assert.ok(bytes > 100 * 2 ** 20, `export is ${bytes} bytes`);
    // A buffered export would need at least `bytes` (twice that as a JS string). Half of it is the
    // bound: the server and this reader share one process, so the reader's socket buffers and the
    // allocator's unreturned pages count too (30–40 MiB on a 2-core CI machine).
    assert.ok(growth < bytes / 2, `RSS grew by ${growth} bytes for a ${bytes}-byte export`);
  });
}
