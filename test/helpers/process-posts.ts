import assert from 'node:assert/strict';
import { basicAuthHeader, type ServerProcess } from './server-process.js';

/** POSTs JSON to a server process; asserts 200 and answers the parsed body (JSON Lines as a list for stream_query). */
export type Post = (url: string, body: unknown) => Promise<any>;

/** A server process of a multi-node test, POSTed to without assertions: each answer's status and text. */
export interface Node {
  server: ServerProcess;
  post(url: string, body: unknown): Promise<{ status: number; text: string }>;
}

/** A `Node` for `server`, authenticating with `key`. */
export function node(server: ServerProcess, key: string): Node {
  return {
    server,
    post: async (url, body) => {
      const res = await fetch(`${server.url}${url}`, {
        method: 'POST',
        headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
  };
}

/** A `Post` to `server` with `key`; a failure's message carries the end of the server's output. */
export function poster(server: ServerProcess, key: string): Post {
  const raw = node(server, key);
  return async (url, body) => {
    const { status, text } = await raw.post(url, body);
    assert.equal(status, 200, `${url}: ${text}\n${server.output().slice(-4000)}`);
    return url === '/calls/stream_query'
      ? text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : JSON.parse(text);
  };
}

/** Publishes an object through `/obj/create` and answers its ref. */
export async function publish(
  post: Post,
  projectId: string,
  name: string,
  val: Record<string, unknown>,
  builtin?: string,
): Promise<string> {
  const extra = builtin ? { builtin_object_class: builtin } : {};
  const res = await post('/obj/create', { obj: { project_id: projectId, object_id: name, val, ...extra } });
  return `weave:///${projectId}/object/${name}:${res.digest}`;
}

/**
 * The online monitor of the monitor tests (docs/monitors.md): an LLM-as-a-judge scorer whose model
 * `judge` answers JSON, and the active monitor `sums` scoring the project's `solve` calls with it at
 * `samplingRate`. `monitorPost` publishes the monitor itself (another node, in a multi-node test).
 */
export async function publishJudgeMonitor(
  post: Post,
  projectId: string,
  samplingRate: number,
  monitorPost: Post = post,
): Promise<void> {
  const judgeModel = await publish(
    post,
    projectId,
    'judge_model',
    { llm_model_id: 'judge', default_params: { messages_template: [], response_format: 'json_object' } },
    'LLMStructuredCompletionModel',
  );
  const judge = await publish(post, projectId, 'judge', {
    _type: 'LLMAsAJudgeScorer',
    _class_name: 'LLMAsAJudgeScorer',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'correctness',
    model: judgeModel,
    scoring_prompt: 'Expected {expected}; got {output}',
  });
  await publish(monitorPost, projectId, 'sums', {
    _type: 'Monitor',
    _class_name: 'Monitor',
    _bases: ['Object', 'BaseModel'],
    name: 'sums',
    sampling_rate: samplingRate,
    scorers: [judge],
    op_names: [`weave:///${projectId}/op/solve:*`],
    query: null,
    active: true,
  });
}
