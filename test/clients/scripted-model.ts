import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible model endpoint (`POST /v1/chat/completions`, non-streaming) for the
 * agent framework tests. Deterministic from the request alone:
 * - the last message is a tool result → a final answer built from that result;
 * - a translator request (its system prompt starts "You are a translator") → the translation;
 * - a user asking for "weather in <City>" → a call of the `get_weather` tool;
 * - a user asking to "Translate <text> into ..." → a call of the tool whose name contains "translat",
 *   with the text under that tool's first required parameter.
 */

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** Every request body received, in order. */
  requests: Array<Record<string, any>>;
  close(): Promise<void>;
}

const TRANSLATIONS: Record<string, string> = { 'good morning': 'bom dia' };

type Message = { role: string; content?: unknown; tool_calls?: unknown };

/** The text of a chat message's content (string or parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

type Reply = { content: string } | { tool: string; args: Record<string, unknown> };

function decide(body: Record<string, any>): Reply {
  const messages = (body.messages ?? []) as Message[];
  const last = messages.at(-1);
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
  if (last?.role === 'tool') {
    const result = textOf(last.content);
    try {
      const weather = JSON.parse(result) as { temp_c?: number; sky?: string };
      if (typeof weather.sky === 'string') {
        const asked = [...messages].reverse().find((m) => m.role === 'user');
        const city = /weather in ([A-Z][a-z]+)/.exec(textOf(asked?.content))?.[1] ?? 'that city';
        return { content: `${city} is ${weather.sky} at ${weather.temp_c} degrees C.` };
      }
    } catch {
      // not JSON: a translation
    }
    return { content: `In Portuguese: ${result}` };
  }
  const user = textOf(last?.content);
  if (/^You are a translator/m.test(system)) {
    const text = user.trim().toLowerCase();
    return { content: TRANSLATIONS[text] ?? `(${text})` };
  }
  const tools = (body.tools ?? []) as Array<{ function: { name: string; parameters?: any } }>;
  const weatherCity = /weather in ([A-Z][a-z]+)/.exec(user)?.[1];
  if (weatherCity !== undefined) return { tool: 'get_weather', args: { city: weatherCity } };
  const translate = /Translate (.+) into/.exec(user)?.[1];
  const translator = tools.find((t) => t.function.name.includes('translat'));
  if (translate !== undefined && translator !== undefined) {
    const params = translator.function.parameters ?? {};
    const param = (params.required as string[] | undefined)?.[0] ?? Object.keys(params.properties ?? {})[0] ?? 'input';
    return { tool: translator.function.name, args: { [param]: translate } };
  }
  return { content: `I cannot help with: ${user}` };
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: Array<Record<string, any>> = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw) as Record<string, any>;
      requests.push(body);
      const reply = decide(body);
      const n = ++calls;
      const message =
        'content' in reply
          ? { role: 'assistant', content: reply.content }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${n}`,
                  type: 'function',
                  function: { name: reply.tool, arguments: JSON.stringify(reply.args) },
                },
              ],
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: 'chat.completion',
          created: 1_767_225_600 + n,
          model: 'scripted-model-2026-01-01',
          choices: [{ index: 0, message, finish_reason: 'content' in reply ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 20 + n, completion_tokens: 5, total_tokens: 25 + n },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
