import { Link } from '@tanstack/react-router';

/** The links between the agents pages, under each page's heading. */
export function AgentsNav({ entity, project }: { entity: string; project: string }) {
  const params = { entity, project };
  return (
    <nav aria-label="Agents views" className="agents-nav">
      <Link to="/$entity/$project/weave/agents" params={params} activeOptions={{ exact: true, includeSearch: false }}>
        Agents
      </Link>
      <Link
        to="/$entity/$project/weave/agents/conversations"
        params={params}
        activeOptions={{ exact: false, includeSearch: false }}
      >
        Conversations
      </Link>
      <Link to="/$entity/$project/weave/agents/search" params={params} activeOptions={{ includeSearch: false }}>
        Message search
      </Link>
      <Link to="/$entity/$project/weave/agents/spans" params={params} activeOptions={{ includeSearch: false }}>
        Spans
      </Link>
    </nav>
  );
}
