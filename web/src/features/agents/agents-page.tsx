import { getRouteApi, Link } from '@tanstack/react-router';
import { useAgentRollups, useAgents, useAgentVersions, type AgentRow, type SpanGroup } from '../../api/agents.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatCost, formatInt, formatLatency, formatTime, plural } from '../../lib/format.js';
import { AgentsNav } from './agents-nav.js';

const agentsRoute = getRouteApi('/$entity/$project/weave/agents');

const avgLatency = (r: AgentRow) =>
  r.invocation_count > 0 ? Math.round(r.total_duration_ms / r.invocation_count) : null;

/** Every agent of the project with its totals; `?agent=` shows that agent's versions side by side. */
export function AgentsPage() {
  const { entity, project } = agentsRoute.useParams();
  const { agent } = agentsRoute.useSearch();
  const navigate = agentsRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const agents = useAgents(projectId);
  const rollups = useAgentRollups(projectId, null);
  const byName = new Map((rollups.data?.groups ?? []).map((g) => [String(g.group_keys.agent_name), g]));
  return (
    <main className="page agents-page">
      <div className="page-head">
        <PageHeading>Agents</PageHeading>
        {agents.data && <span className="muted">{plural(agents.data.total_count, 'agent')}</span>}
      </div>
      <AgentsNav entity={entity} project={project} />
      {agents.isPending && <p className="muted">Loading agents…</p>}
      {agents.isError && <p role="alert">Could not load agents: {agents.error.message}</p>}
      {agents.data && agents.data.agents.length === 0 && (
        <p>
          No agents in this project yet. Export GenAI spans (<code>invoke_agent</code> with{' '}
          <code>gen_ai.agent.name</code>) to <code>/agents/otel/v1/traces</code>.
        </p>
      )}
      {agents.data && agents.data.agents.length > 0 && (
        <div className="table-scroll">
          <table className="simple-table agents-table" aria-label="Agents">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col" className="num">
                  Invocations
                </th>
                <th scope="col" className="num">
                  Turns
                </th>
                <th scope="col" className="num">
                  Conversations
                </th>
                <th scope="col" className="num">
                  Input tokens
                </th>
                <th scope="col" className="num">
                  Output tokens
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col" className="num">
                  Errors
                </th>
                <th scope="col" className="num">
                  Avg latency
                </th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
                <th scope="col">
                  <span className="sr-only">Versions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {agents.data.agents.map((a) => {
                const g = byName.get(a.agent_name);
                // errors of every span the agent owns (its model and tool calls too), not only its own
                const errors = g?.error_count ?? a.error_count;
                return (
                  <tr key={a.agent_name} className={a.agent_name === agent ? 'selected' : undefined}>
                    <th scope="row">
                      <Link
                        to="/$entity/$project/weave/agents/conversations"
                        params={{ entity, project }}
                        search={{ agent: a.agent_name }}
                      >
                        {a.agent_name}
                      </Link>
                    </th>
                    <td className="num">{formatInt(a.invocation_count)}</td>
                    <td className="num">{g ? formatInt(g.metrics.turns ?? 0) : '…'}</td>
                    <td className="num">{g ? formatInt(g.conversation_count) : '…'}</td>
                    <td className="num">{g ? formatInt(g.total_input_tokens) : '…'}</td>
                    <td className="num">{g ? formatInt(g.total_output_tokens) : '…'}</td>
                    <td className="num">{formatCost(g?.total_cost_usd)}</td>
                    <td className={`num${errors > 0 ? ' error-text' : ''}`}>{formatInt(errors)}</td>
                    <td className="num">{formatLatency(avgLatency(a))}</td>
                    <td>{formatTime(a.first_seen, false)}</td>
                    <td>{formatTime(a.last_seen, false)}</td>
                    <td>
                      <button
                        type="button"
                        className="link-button"
                        aria-pressed={a.agent_name === agent}
                        onClick={() => void navigate({ search: a.agent_name === agent ? {} : { agent: a.agent_name } })}
                      >
                        Versions<span className="sr-only"> of {a.agent_name}</span>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {rollups.isError && <p role="alert">Could not load token totals: {rollups.error.message}</p>}
      {agent && <Versions projectId={projectId} agent={agent} />}
    </main>
  );
}

interface VersionColumn {
  version: string;
  row: AgentRow;
  group: SpanGroup | undefined;
}

const VERSION_ROWS: { label: string; value: (c: VersionColumn) => string }[] = [
  { label: 'Invocations', value: (c) => formatInt(c.row.invocation_count) },
  { label: 'Turns', value: (c) => (c.group ? formatInt(c.group.metrics.turns ?? 0) : '—') },
  { label: 'Conversations', value: (c) => (c.group ? formatInt(c.group.conversation_count) : '—') },
  { label: 'Input tokens', value: (c) => (c.group ? formatInt(c.group.total_input_tokens) : '—') },
  { label: 'Output tokens', value: (c) => (c.group ? formatInt(c.group.total_output_tokens) : '—') },
  { label: 'Cost', value: (c) => formatCost(c.group?.total_cost_usd) },
  { label: 'Errors', value: (c) => formatInt(c.group?.error_count ?? c.row.error_count) },
  { label: 'Avg latency', value: (c) => formatLatency(avgLatency(c.row)) },
  { label: 'Models', value: (c) => c.group?.request_models.join(', ') || '—' },
  { label: 'First seen', value: (c) => formatTime(c.row.first_seen, false) },
  { label: 'Last seen', value: (c) => formatTime(c.row.last_seen, false) },
];

function Versions({ projectId, agent }: { projectId: string; agent: string }) {
  const versions = useAgentVersions(projectId, agent);
  const rollups = useAgentRollups(projectId, agent);
  const groups = new Map((rollups.data?.groups ?? []).map((g) => [String(g.group_keys.agent_version ?? ''), g]));
  const cols: VersionColumn[] = (versions.data?.versions ?? []).map((row) => ({
    version: row.agent_version ?? '',
    row,
    group: groups.get(row.agent_version ?? ''),
  }));
  return (
    <section className="agent-versions" aria-labelledby="versions-heading">
      <h2 id="versions-heading">
        Versions of <span className="mono">{agent}</span>
      </h2>
      {versions.isPending && <p className="muted">Loading versions…</p>}
      {versions.isError && <p role="alert">Could not load versions: {versions.error.message}</p>}
      {versions.data && cols.length === 0 && <p className="muted">No versions recorded.</p>}
      {cols.length > 0 && (
        <div className="table-scroll">
          <table className="simple-table" aria-label={`Versions of ${agent}`}>
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">Measure</span>
                </th>
                {cols.map((c) => (
                  <th scope="col" key={c.version} className="num mono">
                    {c.version || '(none)'}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {VERSION_ROWS.map((r) => (
                <tr key={r.label}>
                  <th scope="row">{r.label}</th>
                  {cols.map((c) => (
                    <td key={c.version} className="num">
                      {r.value(c)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
