import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';

/**
 * A `fetch` that sends through `app.inject` (no port), so the official MCP client drives the app
 * the way route tests do. The client only reads the status, the headers and the body text.
 */
export function injectFetch(app: FastifyInstance): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'POST',
      url: `${url.pathname}${url.search}`,
      headers,
      payload: typeof init?.body === 'string' ? init.body : undefined,
    });
    const out = new Headers();
    for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) out.set(key, String(value));
    return new Response(res.statusCode === 204 ? null : res.payload, { status: res.statusCode, headers: out });
  };
}

/** The official MCP client connected to the app's `/mcp` with the given Authorization header. */
export async function mcpClient(app: FastifyInstance, authorization: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://heddle.test/mcp'), {
    requestInit: { headers: { authorization } },
    fetch: injectFetch(app),
  });
  const client = new Client({ name: 'heddle-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A tool's answer: the JSON of its text content, and whether it is an error result. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; value: any; chars: number }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as Array<{ type: string; text: string }>;
  const text = content[0]?.text ?? '';
  return { isError: res.isError === true, value: JSON.parse(text), chars: text.length };
}
