import type { Ajv, ValidateFunction } from 'ajv';
import { AppError, RequestValidationError } from '../../errors/app-error.js';
import { toValidationDetails } from '../../schemas/ajv.js';
import type { Caller } from '../auth-service.js';
import { idOf, messageProblem, RPC, rpcError, type JsonRpcRequest, type JsonRpcResponse } from './json-rpc.js';
import { MAX_RESULT_CHARS } from './mcp-bounds.js';
import type { McpTool } from './mcp-tool.js';

/**
 * Protocol revisions this server speaks, newest first. A tools-only server over stateless HTTP
 * behaves the same in each (the later revisions add optional fields this server does not use).
 */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

const INSTRUCTIONS =
  'Heddle stores traces of LLM applications (Weave calls). Every tool takes project_id "entity/project". ' +
  'List tools return a page and say how to get the next one (offset=next_offset); long values are ' +
  'shortened with a note. Use count_calls before paging through many calls.';

/** Logs what the protocol cannot answer with a reason (an internal error in a tool). */
export type McpLog = (error: unknown, tool: string) => void;

/**
 * The Model Context Protocol's server side over Heddle's services (docs/mcp.md): `initialize`,
 * `ping`, `tools/list` and `tools/call`. Stateless: every request carries the caller's credentials
 * and nothing is kept between requests, so any node answers any request.
 */
export class McpServer {
  readonly #tools = new Map<string, { tool: McpTool; validate: ValidateFunction }>();

  constructor(
    tools: McpTool[],
    ajv: Ajv,
    private readonly serverVersion: string,
  ) {
    for (const tool of tools) this.#tools.set(tool.name, { tool, validate: ajv.compile(tool.input) });
  }

  get toolNames(): string[] {
    return [...this.#tools.keys()];
  }

  /** One message in, its response out (null for notifications and client responses). */
  async handle(caller: Caller, message: unknown, log: McpLog): Promise<JsonRpcResponse | null> {
    const problem = messageProblem(message);
    if (problem !== null) return rpcError(idOf(message), RPC.invalidRequest, `Invalid request: ${problem}`);
    const m = message as JsonRpcRequest;
    if (m.method === undefined || m.id === undefined) return null;
    const params = m.params ?? {};
    switch (m.method) {
      case 'initialize':
        return { jsonrpc: '2.0', id: m.id, result: this.#initialize(params) };
      case 'ping':
        return { jsonrpc: '2.0', id: m.id, result: {} };
      case 'tools/list':
        return { jsonrpc: '2.0', id: m.id, result: { tools: this.#list() } };
      case 'tools/call':
        return this.#call(caller, m.id, params, log);
      default:
        return rpcError(m.id, RPC.methodNotFound, `Method not found: ${m.method} (this server offers tools only)`);
    }
  }

  #initialize(params: Record<string, unknown>) {
    const asked = params.protocolVersion;
    const version = (MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(asked)
      ? (asked as string)
      : MCP_PROTOCOL_VERSIONS[0];
    return {
      protocolVersion: version,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'heddle', title: 'Heddle', version: this.serverVersion },
      instructions: INSTRUCTIONS,
    };
  }

  #list() {
    return [...this.#tools.values()].map(({ tool }) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      annotations: {
        title: tool.title,
        readOnlyHint: tool.readOnly,
        destructiveHint: false,
        idempotentHint: tool.readOnly,
        openWorldHint: false,
      },
    }));
  }

  async #call(
    caller: Caller,
    id: string | number,
    params: Record<string, unknown>,
    log: McpLog,
  ): Promise<JsonRpcResponse> {
    const name = params.name;
    if (typeof name !== 'string') return rpcError(id, RPC.invalidParams, 'tools/call needs params.name');
    const entry = this.#tools.get(name);
    if (!entry) return rpcError(id, RPC.invalidParams, `Unknown tool: ${name}; tools/list names them`);
    const args = params.arguments ?? {};
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      return rpcError(id, RPC.invalidParams, 'params.arguments must be an object');
    // a copy: validation fills defaults and converts lax values in place
    const input = structuredClone(args) as Record<string, unknown>;
    if (!entry.validate(input)) {
      const detail = toValidationDetails(entry.validate.errors ?? [], 'arguments');
      const text = detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ');
      return toolError(id, { status: 422, reason: `Invalid arguments for ${name}: ${text}`, detail });
    }
    try {
      const value = await entry.tool.run(caller, input);
      return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: resultText(value) }] } };
    } catch (error) {
      if (error instanceof RequestValidationError)
        return toolError(id, { status: error.status, reason: error.message, detail: error.detail });
      if (error instanceof AppError && error.isUserError)
        return toolError(id, { status: error.status, reason: error.message, ...error.extra });
      if (error instanceof AppError && error.status !== 500)
        return toolError(id, { status: error.status, reason: error.message });
      log(error, name);
      return rpcError(id, RPC.internalError, 'Internal server error');
    }
  }
}

function resultText(value: unknown): string {
  const text = JSON.stringify(value);
  // the tools fit their answers themselves; this is the backstop should one not
  if (text.length > MAX_RESULT_CHARS * 2) throw new Error(`tool answer of ${text.length} characters`);
  return text;
}

/**
 * A tool that ran and failed answers a result with `isError` (the MCP specification's "Error
 * Handling": the model sees the reason and can correct itself), with the HTTP status the same
 * request to the REST API would have had.
 */
function toolError(id: string | number, error: Record<string, unknown>): JsonRpcResponse {
  return {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true },
  };
}
