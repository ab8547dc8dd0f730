import * as S from '../schemas/agents.js';
import type { Services } from '../services/index.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/**
 * The Agents API read routes and the live span start (docs/spec/agents.md §2.7, §4–§11). The OTLP
 * ingest routes live with the other OTLP routes (routes/otel.ts), which own the protobuf parsers.
 */
export default async function agentRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { agents } = services;
  const post = jsonPost(app, ['Agents']);
  const ok = S.AgentsRes;
  post('/agents/spans/query', { body: S.AgentSpansQueryReq, ok, summary: 'Agent Spans Query' }, (caller, body) =>
    agents.spansQuery(caller, body),
  );
  post(
    '/agents/spans/custom-attrs/schema',
    { body: S.AgentCustomAttrsSchemaReq, ok, summary: 'Agent Custom Attributes Schema' },
    (caller, body) => agents.customAttrsSchema(caller, body),
  );
  post('/agents/spans/stats', { body: S.AgentSpanStatsReq, ok, summary: 'Agent Span Stats' }, (caller, body) =>
    agents.spanStats(caller, body),
  );
  post(
    '/agents/spans/diagnostics',
    { body: S.AgentSpanDiagnosticsReq, ok, summary: 'Agent Span Diagnostics' },
    (caller, body) => agents.diagnostics(caller, body),
  );
  post('/agents/query', { body: S.AgentsQueryReq, ok, summary: 'Agents Query' }, (caller, body) =>
    agents.agentsQuery(caller, body),
  );
  post(
    '/agents/agent-versions/query',
    { body: S.AgentVersionsQueryReq, ok, summary: 'Agent Versions Query' },
    (caller, body) => agents.agentVersionsQuery(caller, body),
  );
  post('/agents/search', { body: S.AgentSearchReq, ok, summary: 'Agent Message Search' }, (caller, body) =>
    agents.search(caller, body),
  );
  post('/agents/traces/chat', { body: S.AgentTraceChatReq, ok, summary: 'Agent Trace Chat' }, (caller, body) =>
    agents.traceChat(caller, body),
  );
  post(
    '/agents/conversations/chat',
    { body: S.AgentConversationChatReq, ok, summary: 'Agent Conversation Chat' },
    (caller, body) => agents.conversationChat(caller, body),
  );
  post(
    '/agents/conversations/spans',
    { body: S.AgentConversationSpansReq, ok, summary: 'Agent Conversation Spans' },
    (caller, body) => agents.conversationSpans(caller, body),
  );
  post('/otel/v1/genai/span/start', { body: S.GenAISpanStartReq, ok, summary: 'GenAI Span Start' }, (caller, body) =>
    agents.spanStart(caller, body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const agentsArea = routeArea('agents', agentRoutes, {
  // Agents API (docs/spec/agents.md): the live start writes, the rest read (its two ingest paths are
  // OTLP routes, routes/otel.ts)
  'POST /otel/v1/genai/span/start': 'write',
  'POST /agents/spans/query': 'read',
  'POST /agents/spans/custom-attrs/schema': 'read',
  'POST /agents/spans/diagnostics': 'read',
  'POST /agents/spans/stats': 'read',
  'POST /agents/query': 'read',
  'POST /agents/agent-versions/query': 'read',
  'POST /agents/search': 'read',
  'POST /agents/traces/chat': 'read',
  'POST /agents/conversations/chat': 'read',
  'POST /agents/conversations/spans': 'read',
});
