import { getRouteApi, Link } from '@tanstack/react-router';
import { useConversations } from '../../api/agents.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatInt, formatTime, plural } from '../../lib/format.js';
import { AgentsNav } from './agents-nav.js';

const conversationsRoute = getRouteApi('/$entity/$project/weave/agents/conversations');

/** The project's conversations (spans grouped by conversation id), `?agent=` for one agent's. */
export function ConversationsPage() {
  const { entity, project } = conversationsRoute.useParams();
  const { agent } = conversationsRoute.useSearch();
  const projectId = `${entity}/${project}`;
  const list = useConversations(projectId, agent ?? null);
  const rows = (list.data?.groups ?? []).filter((g) => g.group_keys.conversation_id);
  return (
    <main className="page conversations-page">
      <div className="page-head">
        <PageHeading>{agent ? `Conversations of ${agent}` : 'Conversations'}</PageHeading>
        {list.data && <span className="muted">{plural(rows.length, 'conversation')}</span>}
        {agent && (
          <Link to="/$entity/$project/weave/agents/conversations" params={{ entity, project }} search={{}}>
            All agents
          </Link>
        )}
      </div>
      <AgentsNav entity={entity} project={project} />
      {list.isPending && <p className="muted">Loading conversations…</p>}
      {list.isError && <p role="alert">Could not load conversations: {list.error.message}</p>}
      {list.data && rows.length === 0 && (
        <p>No conversations{agent ? ` for ${agent}` : ''}: spans with gen_ai.conversation.id make one.</p>
      )}
      {rows.length > 0 && (
        <div className="table-scroll">
          <table className="simple-table conversations-table" aria-label="Conversations">
            <thead>
              <tr>
                <th scope="col">Conversation</th>
                <th scope="col">First message</th>
                <th scope="col">Last message</th>
                <th scope="col">Agents</th>
                <th scope="col" className="num">
                  Turns
                </th>
                <th scope="col" className="num">
                  Tokens in / out
                </th>
                <th scope="col" className="num">
                  Errors
                </th>
                <th scope="col" className="num">
                  Spans
                </th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((g) => {
                const id = String(g.group_keys.conversation_id);
                return (
                  <tr key={id}>
                    <th scope="row">
                      <Link
                        to="/$entity/$project/weave/agents/conversations/$conversationId"
                        params={{ entity, project, conversationId: id }}
                        search={{}}
                        className="mono"
                      >
                        {id}
                      </Link>
                    </th>
                    <td className="clip">{g.first_message?.text ?? '—'}</td>
                    <td className="clip">{g.last_message?.text ?? '—'}</td>
                    <td>{g.agent_names.join(', ') || '—'}</td>
                    <td className="num">{formatInt(g.metrics.turns ?? 0)}</td>
                    <td className="num">
                      {formatInt(g.total_input_tokens)} / {formatInt(g.total_output_tokens)}
                    </td>
                    <td className={`num${g.error_count > 0 ? ' error-text' : ''}`}>{formatInt(g.error_count)}</td>
                    <td className="num">{formatInt(g.span_count)}</td>
                    <td>{formatTime(g.last_seen, false)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
