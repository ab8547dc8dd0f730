import { createAjv } from '../../schemas/ajv.js';
import { Operand } from '../../schemas/query.js';
import { HEDDLE_VERSION } from '../../version.js';
import type { CallQueryService } from '../call-query-service.js';
import type { EvalResultsService } from '../evaluations/eval-results-service.js';
import type { FeedbackService } from '../feedback-service.js';
import type { ObjectService } from '../object-service.js';
import type { TableService } from '../table-service.js';
import type { ThreadService } from '../thread-service.js';
import { callTools } from './call-tools.js';
import { evaluationTools } from './eval-tools.js';
import { McpServer } from './mcp-server.js';
import { objectTools } from './object-tools.js';

export { McpServer, MCP_PROTOCOL_VERSIONS } from './mcp-server.js';

export interface McpDeps {
  calls: CallQueryService;
  threads: ThreadService;
  objects: ObjectService;
  tables: TableService;
  feedback: FeedbackService;
  evalResults: EvalResultsService;
}

/** The MCP server and its tools, over the services every other route uses (docs/mcp.md). */
export function createMcpServer(deps: McpDeps): McpServer {
  // the same checks as the REST routes, with the query language's shared operand schema
  const ajv = createAjv([Operand]);
  const tools = [
    ...callTools(ajv, deps.calls, deps.threads),
    ...evaluationTools(deps.calls, deps.evalResults),
    ...objectTools(ajv, deps),
  ];
  return new McpServer(tools, ajv, HEDDLE_VERSION);
}
