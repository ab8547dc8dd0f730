import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sampledIn } from '../src/domain/monitors.js';
import { LoadClient, quantile } from './lib/load.js';
import { REPO_ROOT, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo } from './lib/report.js';

/**
 * The online monitor benchmark (npm run bench:monitors, docs/monitors.md). One Heddle process on
 * SQLite, its judge an OpenAI-compatible stub on loopback answering after BENCH_MONITOR_JUDGE_MS.
 * (1) Ingest rate: `/call/upsert_batch` at full speed for a fixed time, first in a project without
 * a monitor, then in a project with one active monitor on the ingested op (sampling
 * BENCH_MONITOR_RATE_SAMPLE), its scoring running in the same process meanwhile.
 * (2) Lag: calls ingested one per request at a steady BENCH_MONITOR_CPS, each ended at send time,
 * a monitor sampling BENCH_MONITOR_LAG_SAMPLE of them; the lag of a scored call is its feedback's
 * `created_at` minus its `ended_at` (one clock: the same machine). See BENCHMARKS.md.
 */

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
};

const CONFIG = {
  ingestSeconds: num('BENCH_MONITOR_INGEST_SECONDS', 8),
  batchCalls: num('BENCH_MONITOR_BATCH', 100),
  concurrency: num('BENCH_MONITOR_CONCURRENCY', 4),
  rateSample: num('BENCH_MONITOR_RATE_SAMPLE', 0.01),
  lagSeconds: num('BENCH_MONITOR_LAG_SECONDS', 20),
  callsPerSecond: num('BENCH_MONITOR_CPS', 100),
  lagSample: num('BENCH_MONITOR_LAG_SAMPLE', 0.2),
  judgeMs: Number(process.env.BENCH_MONITOR_JUDGE_MS ?? '0'),
};

const log = (message: string): void => {
  process.stderr.write(`[bench-monitors ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

/** The judge: every chat completion answers `{"score": 1}` after `delayMs`. */
async function startJudge(delayMs: number): Promise<{ url: string; requests: () => number; close(): void }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      const reply = (): void => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-bench',
            object: 'chat.completion',
            model: 'judge',
            choices: [{ index: 0, message: { role: 'assistant', content: '{"score": 1}' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function publish(client: LoadClient, project: string, name: string, val: unknown, builtin?: string) {
  const body = {
    obj: { project_id: project, object_id: name, val, ...(builtin ? { builtin_object_class: builtin } : {}) },
  };
  const reply = await client.postOk('/obj/create', JSON.stringify(body), true);
  return `weave:///${project}/object/${name}:${(JSON.parse(reply.text!) as { digest: string }).digest}`;
}

/** A judge scorer and an active monitor on op `work` of the project. */
async function addMonitor(client: LoadClient, project: string, samplingRate: number): Promise<void> {
  const model = await publish(
    client,
    project,
    'judge_model',
    { llm_model_id: 'judge', default_params: { messages_template: [], response_format: 'json_object' } },
    'LLMStructuredCompletionModel',
  );
  const judge = await publish(client, project, 'judge', {
    _type: 'LLMAsAJudgeScorer',
    _class_name: 'LLMAsAJudgeScorer',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'quality',
    model,
    scoring_prompt: 'Rate {output}',
  });
  await publish(client, project, 'watch', {
    _type: 'Monitor',
    _class_name: 'Monitor',
    _bases: ['Object', 'BaseModel'],
    name: 'watch',
    sampling_rate: samplingRate,
    scorers: [judge],
    op_names: [`weave:///${project}/op/work:*`],
    query: null,
    active: true,
  });
}

function callParts(project: string, id: string, endedMs: number): unknown[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  return [
    {
      mode: 'start',
      req: {
        start: {
          project_id: project,
          id,
          trace_id: id,
          op_name: `weave:///${project}/op/work:v1`,
          started_at: iso(endedMs - 5),
          attributes: {},
          inputs: { question: `q-${id.slice(-6)}` },
        },
      },
    },
    {
      mode: 'end',
      req: { end: { project_id: project, id, ended_at: iso(endedMs), output: { answer: 42 }, summary: {} } },
    },
  ];
}

/** Full-speed batch ingest for the configured time; calls/s. */
async function ingestRate(
  client: LoadClient,
  project: string,
): Promise<{ calls: number; seconds: number; rate: number; ids: string[] }> {
  const until = performance.now() + CONFIG.ingestSeconds * 1000;
  const t0 = performance.now();
  const ids: string[] = [];
  const worker = async (): Promise<void> => {
    while (performance.now() < until) {
      const now = Date.now();
      const batchIds = Array.from({ length: CONFIG.batchCalls }, () => randomUUID());
      const batch = batchIds.flatMap((id) => callParts(project, id, now));
      await client.postOk('/call/upsert_batch', JSON.stringify({ batch }));
      ids.push(...batchIds);
    }
  };
  await Promise.all(Array.from({ length: CONFIG.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return { calls: ids.length, seconds, rate: ids.length / seconds, ids };
}

/** Waits until the monitor's feedback covers `expected` calls; seconds waited. */
async function drained(client: LoadClient, project: string, expected: number, limitSeconds = 120): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const items = await feedbackOf(client, project);
    if (items.length >= expected) return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > limitSeconds * 1000)
      throw new Error(`${project}: ${items.length} of ${expected} sampled calls scored after ${limitSeconds} s`);
    await sleep(100);
  }
}

type Feedback = { weave_ref: string; created_at: string };

async function feedbackOf(client: LoadClient, project: string): Promise<Feedback[]> {
  const reply = await client.postOk('/feedback/query', JSON.stringify({ project_id: project }), true);
  return (JSON.parse(reply.text!) as { result: Feedback[] }).result;
}

/** Steady ingest with a monitor; the lag of every scored call from its end to its feedback. */
async function lagPhase(client: LoadClient, project: string) {
  await addMonitor(client, project, CONFIG.lagSample);
  const ended = new Map<string, number>();
  const total = Math.round(CONFIG.lagSeconds * CONFIG.callsPerSecond);
  const t0 = performance.now();
  const sends: Array<Promise<unknown>> = [];
  for (let i = 0; i < total; i += 1) {
    const due = t0 + (i * 1000) / CONFIG.callsPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const id = randomUUID();
    const now = Date.now();
    ended.set(id, now);
    sends.push(client.postOk('/call/upsert_batch', JSON.stringify({ batch: callParts(project, id, now) })));
  }
  await Promise.all(sends);
  const offered = total / ((performance.now() - t0) / 1000);
  const expected = [...ended.keys()].filter((id) => sampledIn(project, 'watch', id, CONFIG.lagSample)).length;
  await drained(client, project, expected);
  const items = await feedbackOf(client, project);
  const lags = items.map((f) => Date.parse(f.created_at) - ended.get(String(f.weave_ref).split('/').at(-1)!)!);
  return { calls: total, offered, scored: items.length, lags };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-monitors-'));
  const judge = await startJudge(CONFIG.judgeMs);
  const adminKey = `bench-${randomBytes(12).toString('hex')}`;
  let server: ChildServer | null = null;
  try {
    server = await startHeddle({
      dataDir,
      adminKey,
      env: {
        HEDDLE_PROVIDER_OPENAI_BASE_URL: judge.url,
        HEDDLE_PROVIDER_OPENAI_API_KEY: 'bench',
        HEDDLE_MONITOR_POLL_MS: '250',
      },
    });
    const client = new LoadClient(server.url, adminKey, CONFIG.concurrency + 2);
    log('warm-up');
    await ingestRate(client, 'bench/warmup');
    log(`ingest without a monitor, ${CONFIG.ingestSeconds} s`);
    const without = await ingestRate(client, 'bench/plain');
    await addMonitor(client, 'bench/monitored', CONFIG.rateSample);
    log(`ingest with one active monitor (sampling ${CONFIG.rateSample}), ${CONFIG.ingestSeconds} s`);
    const judged0 = judge.requests();
    const withMonitor = await ingestRate(client, 'bench/monitored');
    const judgedDuring = judge.requests() - judged0;
    const sampled = withMonitor.ids.filter((id) => sampledIn('bench/monitored', 'watch', id, CONFIG.rateSample)).length;
    log(`waiting for the monitor to score its ${sampled} sampled calls`);
    const drainSeconds = await drained(client, 'bench/monitored', sampled);
    log(`lag: ${CONFIG.callsPerSecond} calls/s for ${CONFIG.lagSeconds} s, sampling ${CONFIG.lagSample}`);
    const lag = await lagPhase(client, 'bench/lag');
    client.close();

    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const rows = [
      ['Ingest, no monitor (calls/s)', without.rate.toFixed(0)],
      [`Ingest, one active monitor sampling ${CONFIG.rateSample} (calls/s)`, withMonitor.rate.toFixed(0)],
      ['Ingest rate with the monitor, share of without', `${((withMonitor.rate / without.rate) * 100).toFixed(0)} %`],
      [
        'Sampled calls judged during that ingest / in all, then seconds to finish',
        `${judgedDuring} / ${sampled}, ${drainSeconds.toFixed(1)} s`,
      ],
      [
        `Lag call end → feedback, p50 / p99 / max (${lag.scored} scored of ${lag.calls} calls at ${lag.offered.toFixed(0)}/s)`,
        `${ms(quantile(lag.lags, 0.5))} / ${ms(quantile(lag.lags, 0.99))} / ${ms(Math.max(...lag.lags))}`,
      ],
    ];
    const table = ['| What | Result |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
    const info = machineInfo();
    process.stdout.write(`${table}\n\nconfig: ${JSON.stringify(CONFIG)}\nmachine: ${JSON.stringify(info)}\n`);
    const dir = path.join(REPO_ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    fs.writeFileSync(
      path.join(dir, `monitors-${stamp}.json`),
      `${JSON.stringify({ config: CONFIG, machine: info, without: { ...without, ids: undefined }, withMonitor: { ...withMonitor, ids: undefined }, judgedDuring, sampled, drainSeconds, lag: { ...lag, lags: undefined, p50: quantile(lag.lags, 0.5), p99: quantile(lag.lags, 0.99) } }, null, 2)}\n`,
    );
  } finally {
    await server?.stop();
    judge.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
