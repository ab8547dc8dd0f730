import { getRouteApi, Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useAgentSearch } from '../../api/agents.js';
import { hitText } from '../../lib/agents.js';
import { formatTime, plural } from '../../lib/format.js';
import { PageHeading } from '../../ui/page-heading.js';
import { AgentsNav } from './agents-nav.js';
import { Highlighted } from './highlighted.js';

const searchRoute = getRouteApi('/$entity/$project/weave/agents/search');

/** Message search over the project's conversations (`?q=`), hits grouped by conversation. */
export function AgentSearchPage() {
  const { entity, project } = searchRoute.useParams();
  const { q } = searchRoute.useSearch();
  const navigate = searchRoute.useNavigate();
  const [draft, setDraft] = useState(q ?? '');
  const projectId = `${entity}/${project}`;
  const found = useAgentSearch(projectId, q ?? '');
  return (
    <main className="page agent-search-page">
      <div className="page-head">
        <PageHeading>Message search</PageHeading>
      </div>
      <AgentsNav entity={entity} project={project} />
      <form
        role="search"
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const text = draft.trim();
          void navigate({ search: text ? { q: text } : {} });
        }}
      >
        <label>
          Messages containing{' '}
          <input type="search" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="text to find" />
        </label>
        <button type="submit">Search</button>
      </form>
      {!q && (
        <p className="muted">Search the messages of every conversation: user, assistant, tool calls and results.</p>
      )}
      {q && found.isPending && <p className="muted">Searching…</p>}
      {found.isError && <p role="alert">Search failed: {found.error.message}</p>}
      {q && found.data && (
        <p className="muted" aria-live="polite">
          {plural(found.data.total_conversations, 'conversation')} with “{q}”
        </p>
      )}
      {q &&
        found.data?.results.map((r) => (
          <section key={r.conversation_id} className="search-group" aria-label={`Conversation ${r.conversation_id}`}>
            <h2 className="search-group-head">
              <Link
                to="/$entity/$project/weave/agents/conversations/$conversationId"
                params={{ entity, project, conversationId: r.conversation_id }}
                search={{ q }}
                className="mono"
              >
                {r.conversation_name || r.conversation_id}
              </Link>
              <span className="muted small">
                {' '}
                {r.agent_name} · {`${r.matched_messages.length} match${r.matched_messages.length === 1 ? '' : 'es'}`} ·
                last {formatTime(r.last_activity, false)}
              </span>
            </h2>
            <ol className="hit-list">
              {r.matched_messages.map((m, i) => (
                <li key={`${m.span_id}-${i}`} className="hit">
                  <span className={`role-tag role-${m.role}`}>{m.role}</span>
                  <span className="hit-text">
                    <Highlighted text={hitText(m.content_preview)} needle={q} />
                  </span>
                  <Link
                    to="/$entity/$project/weave/agents/conversations/$conversationId"
                    params={{ entity, project, conversationId: r.conversation_id }}
                    search={{ trace: m.trace_id, span: m.span_id, q }}
                  >
                    Open<span className="sr-only"> this {m.role} message in its conversation</span>
                  </Link>
                </li>
              ))}
            </ol>
          </section>
        ))}
    </main>
  );
}
