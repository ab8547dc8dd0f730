import { getRouteApi, Link } from '@tanstack/react-router';
import { useEffect } from 'react';
import { useConversationChat, type ChatMessage, type ChatTurn } from '../../api/agents.js';
import { nestTurn, prettyJsonText } from '../../lib/agents.js';
import { formatCost, formatInt, formatLatency, formatTime, plural } from '../../lib/format.js';
import { PageHeading } from '../../ui/page-heading.js';
import { AgentsNav } from './agents-nav.js';
import { Highlighted } from './highlighted.js';

const conversationRoute = getRouteApi('/$entity/$project/weave/agents/conversations/$conversationId');

/**
 * One conversation as chat, turn by turn (`/agents/conversations/chat`, 50 turns a page):
 * `?page=` the page, `?trace=` / `?span=` the turn and step to show (a search hit), `?q=` text to mark.
 */
export function ConversationPage() {
  const { entity, project, conversationId } = conversationRoute.useParams();
  const { page = 0, trace, span, q } = conversationRoute.useSearch();
  const navigate = conversationRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const chat = useConversationChat(projectId, conversationId, page);
  const data = chat.data;
  const pages = data ? Math.max(1, Math.ceil(data.total_turns / 50)) : 1;

  // a linked step (or its turn) scrolls into view once the chat is there
  useEffect(() => {
    if (!data) return;
    const target =
      (span && document.querySelector(`[data-span="${CSS.escape(span)}"]`)) ||
      (trace && document.querySelector(`[data-trace="${CSS.escape(trace)}"]`));
    // scroll the page's own container only (scrollIntoView would move the window and the top bar too)
    const main = target instanceof HTMLElement ? target.closest('main') : null;
    if (target instanceof HTMLElement && main)
      main.scrollTop += target.getBoundingClientRect().top - main.getBoundingClientRect().top - 16;
  }, [data, span, trace]);

  return (
    <main className="page conversation-page">
      <div className="page-head">
        <PageHeading>
          Conversation <span className="mono">{conversationId}</span>
        </PageHeading>
        {data && (
          <span className="muted">
            {plural(data.total_turns, 'turn')} · {formatCost(data.total_cost_usd)}
          </span>
        )}
      </div>
      <AgentsNav entity={entity} project={project} />
      {chat.isPending && <p className="muted">Loading the conversation…</p>}
      {chat.isError && <p role="alert">Could not load the conversation: {chat.error.message}</p>}
      {data && data.turns.length === 0 && <p>No turns in this conversation.</p>}
      {data && data.turns.length > 0 && (
        <ol className="agent-turns" aria-label="Turns">
          {data.turns.map((t, i) => (
            <Turn
              key={t.trace_id}
              turn={t}
              n={page * 50 + i + 1}
              entity={entity}
              project={project}
              focusTrace={trace}
              focusSpan={span}
              needle={q}
            />
          ))}
        </ol>
      )}
      {pages > 1 && (
        <nav aria-label="Turn pages" className="pager">
          <button
            type="button"
            disabled={page === 0}
            onClick={() => void navigate({ search: (s) => ({ ...s, page: page - 1 || undefined }) })}
          >
            Earlier turns
          </button>
          <span className="muted">
            Page {page + 1} of {pages}
          </span>
          <button
            type="button"
            disabled={page + 1 >= pages}
            onClick={() => void navigate({ search: (s) => ({ ...s, page: page + 1 }) })}
          >
            Later turns
          </button>
        </nav>
      )}
    </main>
  );
}

function Turn({
  turn,
  n,
  entity,
  project,
  focusTrace,
  focusSpan,
  needle,
}: {
  turn: ChatTurn;
  n: number;
  entity: string;
  project: string;
  focusTrace: string | undefined;
  focusSpan: string | undefined;
  needle: string | undefined;
}) {
  const steps = nestTurn(turn.messages);
  const root = turn.messages.find((m) => m.type === 'agent_start' && m.span_id)?.span_id;
  const failed = turn.status_code === 'ERROR';
  return (
    <li className={`agent-turn${turn.trace_id === focusTrace ? ' focused' : ''}`} data-trace={turn.trace_id}>
      <article aria-label={`Turn ${n}`}>
        <header className="turn-head">
          <h2>Turn {n}</h2>
          <span className={`status ${failed ? 'status-error' : 'status-success'}`}>{failed ? 'error' : 'ok'}</span>
          <span className="muted small">
            {turn.agent_name}
            {turn.agent_version ? `@${turn.agent_version}` : ''} · {formatTime(turn.started_at, false)}
          </span>
          <span className="spacer" />
          <dl className="turn-stats">
            <dt>Tokens</dt>
            <dd>
              {formatInt(turn.total_input_tokens)} in / {formatInt(turn.total_output_tokens)} out
            </dd>
            <dt>Cost</dt>
            <dd>{formatCost(turn.total_cost_usd)}</dd>
            <dt>Latency</dt>
            <dd>{formatLatency(turn.total_duration_ms)}</dd>
          </dl>
          {root && (
            <Link to="/$entity/$project/r/call/$callId" params={{ entity, project, callId: root }} search={{}}>
              Trace<span className="sr-only"> of turn {n}</span>
            </Link>
          )}
        </header>
        <ol className="agent-steps" aria-label={`Steps of turn ${n}`}>
          {steps.map(({ message, depth }, i) => (
            <Step
              key={`${message.span_id ?? 'u'}-${i}`}
              m={message}
              depth={depth}
              entity={entity}
              project={project}
              focused={message.span_id != null && message.span_id === focusSpan}
              needle={needle}
            />
          ))}
        </ol>
      </article>
    </li>
  );
}

function SpanLink({ m, entity, project, what }: { m: ChatMessage; entity: string; project: string; what: string }) {
  if (!m.span_id) return null;
  return (
    <Link
      to="/$entity/$project/r/call/$callId"
      params={{ entity, project, callId: m.span_id }}
      search={{}}
      className="step-span small"
    >
      Span<span className="sr-only"> of {what}</span>
    </Link>
  );
}

function Step({
  m,
  depth,
  entity,
  project,
  focused,
  needle,
}: {
  m: ChatMessage;
  depth: number;
  entity: string;
  project: string;
  focused: boolean;
  needle: string | undefined;
}) {
  const cls = `agent-step step-${m.type}${focused ? ' focused' : ''}`;
  const style = { marginInlineStart: `${depth * 1.75}rem` };
  const common = { className: cls, style, 'data-span': m.span_id ?? undefined };
  if (m.type === 'user_message' && m.user_message) {
    return (
      <li {...common} aria-label={depth > 0 ? `Input to ${m.agent_name}` : 'User message'}>
        <div className="step-who">{depth > 0 ? 'Input' : 'User'}</div>
        <div className="step-text">
          <Highlighted text={m.user_message.text} needle={needle} />
        </div>
      </li>
    );
  }
  if (m.type === 'agent_start' && m.agent_start) {
    return (
      <li {...common} aria-label={`${depth > 0 ? 'Subagent' : 'Agent'} ${m.agent_name} starts`}>
        <div className="step-line">
          <span aria-hidden="true">▸ </span>
          <strong>{m.agent_name}</strong>
          {m.agent_version ? <span className="muted">@{m.agent_version}</span> : null}{' '}
          <span className="muted small">
            {depth > 0 ? 'subagent starts' : 'starts'} · {m.agent_start.model || 'no model'}
          </span>
          {m.status_code === 'ERROR' && <span className="status status-error">error</span>}
          <span className="spacer" />
          <SpanLink m={m} entity={entity} project={project} what={`${m.agent_name} starting`} />
        </div>
      </li>
    );
  }
  if (m.type === 'tool_call' && m.tool_call) {
    const t = m.tool_call;
    return (
      <li {...common} aria-label={`Tool call ${t.tool_name}`}>
        <div className="step-line">
          <span className="step-who">Tool</span> <strong className="mono">{t.tool_name}</strong>{' '}
          <span className="muted small">
            {formatLatency(t.duration_ms)} · {t.status || 'UNSET'}
          </span>
          <span className="spacer" />
          <SpanLink m={m} entity={entity} project={project} what={`tool call ${t.tool_name}`} />
        </div>
        <div className="tool-io">
          <figure>
            <figcaption>Arguments</figcaption>
            <pre className="mono" aria-label={`Arguments of ${t.tool_name}`}>
              <Highlighted text={prettyJsonText(t.tool_arguments)} needle={needle} />
            </pre>
          </figure>
          <figure>
            <figcaption>Result</figcaption>
            <pre className="mono" aria-label={`Result of ${t.tool_name}`}>
              <Highlighted text={prettyJsonText(t.tool_result)} needle={needle} />
            </pre>
          </figure>
        </div>
      </li>
    );
  }
  if (m.type === 'assistant_message' && m.assistant_message) {
    const a = m.assistant_message;
    return (
      <li {...common} aria-label={`Answer of ${m.agent_name}`}>
        <div className="step-line">
          <span className="step-who">{m.agent_name}</span>
          <span className="muted small">
            {' '}
            {a.model} · {formatInt(a.input_tokens)} in / {formatInt(a.output_tokens)} out ·{' '}
            {formatCost(a.total_cost_usd)} · {formatLatency(a.duration_ms)}
          </span>
          {a.status === 'ERROR' && <span className="status status-error">error</span>}
          <span className="spacer" />
          <SpanLink m={m} entity={entity} project={project} what={`the answer of ${m.agent_name}`} />
        </div>
        {a.reasoning_content && (
          <details className="step-reasoning">
            <summary>Reasoning</summary>
            <p className="step-text">{a.reasoning_content}</p>
          </details>
        )}
        <div className="step-text">
          <Highlighted text={a.text} needle={needle} />
        </div>
      </li>
    );
  }
  if (m.type === 'context_compacted' && m.context_compacted) {
    const c = m.context_compacted;
    return (
      <li {...common} aria-label={`Context compacted (${m.agent_name})`}>
        <div className="step-line">
          <span className="step-who">Context compacted</span>{' '}
          <span className="muted small">
            {m.agent_name} · {formatInt(c.compaction_items_before)} → {formatInt(c.compaction_items_after)} items
          </span>
          <span className="spacer" />
          <SpanLink m={m} entity={entity} project={project} what="the compaction" />
        </div>
        {c.compaction_summary && <div className="step-text">{c.compaction_summary}</div>}
      </li>
    );
  }
  // handoffs and anything newer: their kind and span, the rest as JSON
  const body = m.context_compacted ?? m.agent_handoff ?? null;
  return (
    <li {...common} aria-label={`${m.type.replace(/_/g, ' ')} (${m.agent_name})`}>
      <div className="step-line">
        <span className="step-who">{m.type.replace(/_/g, ' ')}</span>{' '}
        <span className="muted small">{m.agent_name}</span>
        <span className="spacer" />
        <SpanLink m={m} entity={entity} project={project} what={m.type.replace(/_/g, ' ')} />
      </div>
      {body && <pre className="mono small">{JSON.stringify(body, null, 2)}</pre>}
    </li>
  );
}
