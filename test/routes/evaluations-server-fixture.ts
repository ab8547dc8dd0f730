import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { Caller } from '../../src/services/auth-service.js';
import type { ChatCompletionInput, CheckpointHandle, Trainer } from '../../src/training/trainer-port.js';
import { PROJECT, type TestApp } from '../helpers/app.js';
import { createDigest } from '../helpers/objects.js';

/** Shared pieces of the server-side evaluation tests (docs/spec/evaluations.md §5–§6). */

export const ENV_KEY = 'sk-env-SECRET-0123456789';
export const OBJECT_SECRET = 'sk-obj-SECRET-9876543210';

const lastUserText = (messages: unknown[]): string => {
  const users = messages.filter(
    (m): m is { role: string; content: string } => (m as { role?: string }).role === 'user',
  );
  return String(users.at(-1)?.content ?? '');
};

/**
 * Deterministic answers by model name: `*solver` adds the two numbers of "What is a+b?"; `*judge`
 * compares "Expected X; got {"answer":Y}" and scores 9 (pass) or 1 (fail).
 */
export function answer(model: string, messages: unknown[]): string {
  const text = lastUserText(messages);
  if (model.includes('solver')) {
    const m = /(\d+)\+(\d+)/.exec(text);
    return JSON.stringify({ answer: m ? Number(m[1]) + Number(m[2]) : null });
  }
  const m = /Expected (.*?); got (.*)$/s.exec(text);
  const pass = m !== null && JSON.parse(m[2]!).answer === JSON.parse(m[1]!);
  return JSON.stringify({ score: pass ? 9 : 1, pass });
}

const completion = (model: string, content: string) => ({
  id: 'chatcmpl-fake',
  object: 'chat.completion',
  model,
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

export interface FakeOpenAi {
  baseUrl: string;
  requests: Array<{ model: string; status: number; authorization: string | undefined; body: Record<string, any> }>;
}

/**
 * An OpenAI-compatible chat server on 127.0.0.1:0. Models: `solver`/`judge` answer (the first
 * `judge` request gets a 429 with `Retry-After: 0`), `hang` never answers, `boom` answers 400
 * echoing the Authorization header (so a leak would show in the error text). `delayMs` slows every answer.
 */
export async function startFakeOpenAi(
  t: Pick<TestContext, 'after'>,
  opts: { delayMs?: number } = {},
): Promise<FakeOpenAi> {
  const requests: FakeOpenAi['requests'] = [];
  let judged = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, any>;
      const model = String(body.model);
      const log = (status: number) => requests.push({ model, status, authorization: req.headers.authorization, body });
      if (model === 'hang') return log(0);
      if (model === 'boom') {
        log(400);
        return res.writeHead(400).end(`bad request from ${req.headers.authorization}`);
      }
      if (model === 'judge' && judged++ === 0) {
        log(429);
        return res.writeHead(429, { 'retry-after': '0' }).end('{"error":"slow down"}');
      }
      log(200);
      const reply = (): void => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(completion(model, answer(model, body.messages))));
      };
      if (opts.delayMs) setTimeout(reply, opts.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

/** The in-process `heddle/` provider's trainer: the same deterministic answers. */
export class AnsweringTrainer implements Trainer {
  readonly name = 'test:answering';
  async train(): Promise<never> {
    throw new Error('not a training test');
  }
  async complete(_checkpoint: CheckpointHandle, request: ChatCompletionInput): Promise<Record<string, unknown>> {
    const { choices, usage } = completion(String(request.model), answer(String(request.model), request.messages));
    return { choices, usage };
  }
  async close(): Promise<void> {}
}

export const providerEnv = (baseUrl: string): Record<string, string> => ({
  HEDDLE_PROVIDER_OPENAI_BASE_URL: baseUrl,
  HEDDLE_PROVIDER_OPENAI_API_KEY: ENV_KEY,
  HEDDLE_SECRET_MY_KEY: OBJECT_SECRET,
  HEDDLE_PROVIDER_TIMEOUT_MS: '300',
  HEDDLE_PROVIDER_MAX_RETRIES: '1',
});

export const ref = (name: string, digest: string): string => `weave:///${PROJECT}/object/${name}:${digest}`;

/** Publishes an object as the Python client does (`/obj/create`, classes in the value); returns its ref. */
export async function publish(
  h: TestApp,
  name: string,
  val: Record<string, unknown>,
  builtin?: string,
): Promise<string> {
  const extra = builtin ? { builtin_object_class: builtin } : {};
  return ref(name, await createDigest(h, name, JSON.stringify(val), extra));
}

export const ROWS = [
  { question: '2+3', expected: 5 },
  { question: '1+1', expected: 3 },
  { question: '4+4', expected: 8 },
];

/** A Dataset of `rows` (its table first), as `weave.Dataset` publishes it. */
export async function publishDataset(h: TestApp, name: string, rows: Array<Record<string, unknown>>): Promise<string> {
  const table = await h.post('/table/create', { table: { project_id: PROJECT, rows } });
  assert.equal(table.statusCode, 200, table.body);
  return publish(h, name, {
    _type: 'Dataset',
    _class_name: 'Dataset',
    _bases: ['Object', 'BaseModel'],
    name,
    description: null,
    rows: `weave:///${PROJECT}/table/${table.json().digest}`,
  });
}

/** An `LLMStructuredCompletionModel` through `builtin_object_class`, as the UI and SDK create it. */
export function publishModel(h: TestApp, name: string, llmModelId: string, template?: unknown[]): Promise<string> {
  return publish(
    h,
    name,
    {
      llm_model_id: llmModelId,
      default_params: {
        messages_template: template ?? [
          { role: 'system', content: 'You add numbers. Answer {{"answer": n}}.' },
          { role: 'user', content: 'What is {question}?' },
        ],
        response_format: 'json_object',
        temperature: 0,
      },
    },
    'LLMStructuredCompletionModel',
  );
}

/** An `LLMAsAJudgeScorer` as the Python client stores it. */
export function publishJudge(h: TestApp, name: string, modelRef: string): Promise<string> {
  return publish(h, name, {
    _type: 'LLMAsAJudgeScorer',
    _class_name: 'LLMAsAJudgeScorer',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'correctness',
    description: null,
    column_map: null,
    model: modelRef,
    scoring_prompt: 'Expected {expected}; got {output}',
  });
}

/**
 * A `weave.Monitor` value as the Python client publishes it (weave/flow/monitor.py): `sums`, active,
 * every `solve` call; `fields` override any of it.
 */
export function monitorValue(scorers: string[], fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    _type: 'Monitor',
    _class_name: 'Monitor',
    _bases: ['Object', 'BaseModel'],
    name: 'sums',
    description: null,
    sampling_rate: 1,
    scorers,
    op_names: [`weave:///${PROJECT}/op/solve:*`],
    query: null,
    is_traced: true,
    active: true,
    scorer_debounce_config: null,
    ...fields,
  };
}

/** A `weave.Evaluation` as the Python client stores it. */
export function publishEvaluation(
  h: TestApp,
  name: string,
  datasetRef: string,
  scorerRefs: string[],
  trials = 1,
): Promise<string> {
  return publish(h, name, {
    _type: 'Evaluation',
    _class_name: 'Evaluation',
    _bases: ['Object', 'BaseModel'],
    name,
    description: null,
    dataset: datasetRef,
    scorers: scorerRefs,
    preprocess_model_input: null,
    trials,
    metadata: null,
    evaluation_name: null,
  });
}

/** Every call of a trace, as `/calls/stream_query` returns them. */
export async function traceCalls(h: TestApp, traceId: string): Promise<Array<Record<string, any>>> {
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { trace_ids: [traceId] } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
}

export const opName = (call: Record<string, any>): string =>
  String(call.op_name)
    .replace(/^weave:\/\/\/[^/]+\/[^/]+\/op\//, '')
    .replace(/:[^:]*$/, '');

/** Alice as the job's caller (the requester a queued job carries). */
export function alice(h: TestApp): Promise<Caller> {
  return h.app.services.auth.authenticate(h.aliceKey);
}
