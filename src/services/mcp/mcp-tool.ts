import type { TObject } from '@sinclair/typebox';
import type { Caller } from '../auth-service.js';

/**
 * One MCP tool (docs/mcp.md "Tools"): its advertised name, description and JSON Schema for the
 * arguments, and the service calls behind it. `run` gets arguments that passed `input` and returns
 * a JSON value, the tool's answer; errors it throws are AppErrors (services' own checks).
 */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: TObject;
  /** Reads only: a viewer may call it. Write tools go through the services' write checks. */
  readOnly: boolean;
  run(caller: Caller, args: Record<string, unknown>): Promise<unknown>;
}

/** The project argument every tool takes first. */
export const PROJECT_ID_DOC = 'The project, as "entity/project" (the same id the Weave API takes).';
