/**
 * The JSON-RPC 2.0 messages MCP exchanges (https://www.jsonrpc.org/specification; the MCP
 * specification's "Base Protocol"): requests carry an id, notifications do not, and each request
 * gets exactly one response with `result` or `error`.
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId | null; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId | null; error: JsonRpcError };

/** The error codes JSON-RPC 2.0 reserves. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A reason when `value` is not a JSON-RPC message (request, notification or response), else null. */
export function messageProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'a message must be a JSON object';
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (m.id !== undefined && typeof m.id !== 'string' && (typeof m.id !== 'number' || !Number.isFinite(m.id)))
    return 'id must be a string or a number';
  if (m.method === undefined) {
    // a response from the client (to a server request): this server sends none, so it is ignored
    if (m.id !== undefined && ('result' in m || 'error' in m)) return null;
    return 'method is required';
  }
  if (typeof m.method !== 'string') return 'method must be a string';
  if (m.params !== undefined && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params)))
    return 'params must be an object';
  return null;
}

/** The id of a message whose shape is wrong, when it has a usable one (for the error response). */
export function idOf(value: unknown): JsonRpcId | null {
  if (value === null || typeof value !== 'object') return null;
  const id = (value as Record<string, unknown>).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
