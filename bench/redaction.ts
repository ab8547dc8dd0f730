/**
 * The ingest cost of PII redaction (issue 35, docs/redaction.md): the same `/call/upsert_batch`
 * workload (BENCH_CALLS calls, default 20,000, 100 a request, 8 in flight, in-process with
 * `inject`, SQLite) into a node without redaction and one with `HEDDLE_REDACT=all`, half the
 * calls carrying an e-mail, phone, SSN, card number and IP in their inputs and output. Reports
 * calls/s of both and the ratio (goal ≥ 80 %). Writes bench/results/redaction-<stamp>.{md,json}.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { machineInfo, writeResults } from './lib/report.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const PER_REQUEST = 100;
const IN_FLIGHT = 8;
const PII =
  'reach jane.roe@example.org or +1 (415) 555-0134, ssn 078-05-1120, card 4111 1111 1111 1111 from 203.0.113.77';

function body(from: number): string {
  const batch = [];
  for (let i = from; i < from + PER_REQUEST; i += 1) {
    const id = `c${i}`;
    const text = i % 2 === 0 ? PII : 'an ordinary question about the weather in a city, with no personal data at all';
    batch.push({
      req: {
        start: {
          project_id: 'bench/redact',
          id,
          trace_id: id,
          op_name: 'weave:///bench/redact/op/chat:abc',
          started_at: new Date(1_767_225_600_000 + i).toISOString(),
          attributes: { weave: { client_version: '0.54.0' } },
          inputs: { messages: [{ role: 'user', content: text }], model: 'gpt-4o-mini', temperature: 0.2 },
        },
      },
    });
    batch.push({
      req: {
        end: {
          project_id: 'bench/redact',
          id,
          ended_at: new Date(1_767_225_601_000 + i).toISOString(),
          output: { content: `answer: ${text}` },
          summary: { usage: { 'gpt-4o-mini': { prompt_tokens: 20, completion_tokens: 30, requests: 1 } } },
        },
      },
    });
  }
  return JSON.stringify({ batch });
}

async function run(env: Record<string, string>): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-redact-bench-'));
  const config = loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent', ...env });
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  const app = await buildApp({ config, store, trainer: null });
  const { key } = await app.services.auth.createKey({ entity: 'bench', username: 'bench' });
  const auth = `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  const bodies = Array.from({ length: CALLS / PER_REQUEST }, (_, i) => body(i * PER_REQUEST));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const payload = bodies[next++]!;
        const res = await app.inject({
          method: 'POST',
          url: '/call/upsert_batch',
          headers: { authorization: auth, 'content-type': 'application/json' },
          payload,
        });
        if (res.statusCode !== 200) throw new Error(`${res.statusCode}: ${res.body.slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await app.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return CALLS / seconds;
}

// alternate the two twice, so a slower moment of the machine falls on both
const plain: number[] = [];
const redacted: number[] = [];
for (let round = 0; round < 2; round += 1) {
  plain.push(await run({}));
  redacted.push(await run({ HEDDLE_REDACT: 'all' }));
}
const best = (xs: number[]): number => Math.max(...xs);
const ratio = best(redacted) / best(plain);
const md = [
  '# PII redaction: ingest cost (SQLite, in-process inject, upsert_batch)',
  '',
  '| Node | calls/s (best of 2) |',
  '|---|---|',
  `| without redaction | ${best(plain).toFixed(0)} |`,
  `| HEDDLE_REDACT=all (half the calls carry 5 kinds of PII in inputs and output) | ${best(redacted).toFixed(0)} |`,
  `| ratio (goal ≥ 80 %) | ${(ratio * 100).toFixed(1)} % |`,
  '',
  `Calls: ${CALLS}. Machine: ${JSON.stringify(machineInfo())}`,
  '',
].join('\n');
process.stdout.write(md);
writeResults(md, { calls: CALLS, plain, redacted, ratio }, 'redaction');
