import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callTool } from '../helpers/mcp.js';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { docSnippets, snippet } from './helpers/readme-snippets.js';
import { runPythonDemo } from './python-script.js';
import { ensureMcpVenv, MCP_PY_VERSION } from './python-venv.js';

/**
 * docs/mcp.md's client configuration, as printed, against a real Heddle process: the official
 * TypeScript client (@modelcontextprotocol/sdk) and the official Python client (PyPI mcp, pinned)
 * connect with its URL and Authorization header, call tools, write feedback, and are refused
 * another entity's project.
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'mcp_demo.py');
const PROJECT = 'acme/mcpdemo';

interface ServerEntry {
  type: string;
  url: string;
  headers: Record<string, string>;
}

/** The doc's `mcpServers.heddle` entry with its address and key placeholder made real. */
function configuredEntry(server: ServerProcess, key: string): ServerEntry {
  const printed = snippet(docSnippets(), 'mcp-servers');
  assert.equal(printed.file, 'docs/mcp.md');
  const config = JSON.parse(printed.code) as {
    mcpServers: Record<string, ServerEntry>;
  };
  const entry = config.mcpServers.heddle!;
  assert.equal(entry.type, 'http');
  const url = new URL(entry.url);
  assert.equal(url.pathname, '/mcp');
  const headers = Object.fromEntries(
    Object.entries(entry.headers).map(([name, value]) => [name, value.replace('YOUR_HEDDLE_API_KEY', key)]),
  );
  assert.notDeepEqual(headers, entry.headers, 'the snippet has a key placeholder');
  return { type: entry.type, url: `${server.url}${url.pathname}`, headers };
}

async function post(server: ServerProcess, key: string, url: string, body: unknown): Promise<any> {
  const res = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

test(
  `docs/mcp.md's configuration with @modelcontextprotocol/sdk and mcp==${MCP_PY_VERSION}`,
  { timeout: 10 * 60_000 },
  async (t) => {
    const venv = await ensureMcpVenv();
    if (!venv.ok) {
      if (process.env.CI === 'true') assert.fail(`cannot install mcp==${MCP_PY_VERSION}: ${venv.reason}`);
      t.skip(`mcp==${MCP_PY_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
      return;
    }
    const server = await startServerProcess(t);
    const key = await server.createKey('acme', { user: 'alice' });
    await post(server, key, '/call/start', {
      start: {
        project_id: PROJECT,
        id: 'mcp-call',
        trace_id: 'mcp-trace',
        op_name: 'chat',
        started_at: '2025-01-01T10:00:00Z',
        attributes: {},
        inputs: { q: 'hello' },
      },
    });
    const entry = configuredEntry(server, key);

    // the TypeScript client over real HTTP
    const client = new Client({ name: 'heddle-docs-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
    );
    t.after(() => client.close());
    const { tools } = await client.listTools();
    assert.equal(tools.length, 13);
    assert.deepEqual((await callTool(client, 'count_calls', { project_id: PROJECT })).value, { count: 1 });
    const refusedTs = await callTool(client, 'count_calls', { project_id: 'other/x' });
    assert.equal(refusedTs.value.error?.status, 403, JSON.stringify(refusedTs.value));

    // the Python client, with the same URL and header
    const { result, log } = await runPythonDemo(venv.python, SCRIPT, server, key, [
      entry.url,
      entry.headers.Authorization!,
      PROJECT,
      'mcp-call',
      'other/x',
    ]);
    assert.equal(result.server, 'heddle', log);
    assert.equal(result.tools.length, 13, log);
    assert.deepEqual(result.count, { is_error: false, value: { count: 1 } }, log);
    assert.deepEqual(result.page.value.calls, [{ id: 'mcp-call', op_name: 'chat' }], log);
    assert.deepEqual(result.call.value.call.inputs, { q: 'hello' }, log);
    assert.equal(result.feedback.is_error, false, log);
    assert.equal(result.other.is_error, true, log);
    assert.equal(result.other.value.error.status, 403, log);
    const feedback = await post(server, key, '/feedback/query', { project_id: PROJECT });
    assert.deepEqual(
      feedback.result.map((f: any) => [f.feedback_type, f.payload.note]),
      [['wandb.note.1', 'from python']],
    );
  },
);
