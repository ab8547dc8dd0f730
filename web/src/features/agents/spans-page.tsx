import { getRouteApi, Link } from '@tanstack/react-router';
import { useMemo } from 'react';
import {
  useAgentSpans,
  useCustomAttrs,
  useSpanGroups,
  useSpanStats,
  type AgentSpan,
  type CustomAttr,
} from '../../api/agents.js';
import { parseAttrColumns, pivotStats, SPAN_GROUPS, type CustomSource } from '../../lib/agents.js';
import { formatInt, formatLatency, formatTime, plural } from '../../lib/format.js';
import { Chart, seriesColor } from '../../ui/chart.js';
import { PageHeading } from '../../ui/page-heading.js';
import { AgentsNav } from './agents-nav.js';

const spansRoute = getRouteApi('/$entity/$project/weave/agents/spans');

const DAY = 86_400_000;
// a grouped stats range may span at most 31 days (the server answers 422 beyond)
const RANGES = [7, 30] as const;
const attrValue = (s: AgentSpan, source: CustomSource, key: string): string => {
  const v = s[source][key];
  return v === undefined ? '' : String(v);
};
const durationMs = (s: AgentSpan) => (s.ended_at ? Date.parse(s.ended_at) - Date.parse(s.started_at) : null);

/**
 * The raw agent spans: charts of span counts and tokens per day (`/agents/spans/stats`), and a table,
 * either of the newest spans with chosen custom-attribute columns, or of groups by agent, model, tool
 * or operation. `?group=`, `?attrs=` (`source:key,…`) and `?days=` hold the view.
 */
export default function AgentSpansPage() {
  const { entity, project } = spansRoute.useParams();
  const { group, attrs, days = 30 } = spansRoute.useSearch();
  const navigate = spansRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const columns = parseAttrColumns(attrs);
  // the window ends at the next midnight (UTC), so a reload within the day asks the same query
  const end = useMemo(() => new Date(Math.ceil(Date.now() / DAY) * DAY).toISOString(), []);
  const start = new Date(Date.parse(end) - days * DAY).toISOString();
  const stats = useSpanStats(projectId, start, end, group ?? null);
  const schema = useCustomAttrs(projectId);
  const label = SPAN_GROUPS.find((g) => g.key === group)?.label;

  const charts = [
    { column: 'count_spans', title: 'Spans per day' },
    { column: 'sum_input_tokens', title: 'Input tokens per day' },
    { column: 'sum_output_tokens', title: 'Output tokens per day' },
  ].map((c) => ({ ...c, ...pivotStats(stats.data?.rows ?? [], c.column, group ?? null) }));

  const toggleAttr = (a: CustomAttr) => {
    const id = `${a.source}:${a.key}`;
    const now = columns.map((c) => `${c.source}:${c.key}`);
    const next = now.includes(id) ? now.filter((x) => x !== id) : [...now, id];
    void navigate({ search: (s) => ({ ...s, attrs: next.length ? next.join(',') : undefined }) });
  };

  return (
    <main className="page agent-spans-page">
      <div className="page-head">
        <PageHeading>Spans</PageHeading>
      </div>
      <AgentsNav entity={entity} project={project} />
      <div className="filters">
        <label>
          Group by{' '}
          <select
            value={group ?? ''}
            onChange={(e) => void navigate({ search: (s) => ({ ...s, group: e.target.value || undefined }) })}
          >
            <option value="">no grouping (spans)</option>
            {SPAN_GROUPS.map((g) => (
              <option key={g.key} value={g.key}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Charts over{' '}
          <select
            value={days}
            onChange={(e) =>
              void navigate({
                search: (s) => ({ ...s, days: Number(e.target.value) === 30 ? undefined : Number(e.target.value) }),
              })
            }
          >
            {RANGES.map((d) => (
              <option key={d} value={d}>
                the last {d} days
              </option>
            ))}
          </select>
        </label>
      </div>
      {stats.isError && <p role="alert">Could not load the span charts: {stats.error.message}</p>}
      <div className="chart-grid">
        {charts.map((c) => (
          <Chart
            key={c.column}
            title={label ? `${c.title} by ${label.toLowerCase()}` : c.title}
            kind="bar"
            stacked
            data={c.data}
            x="timestamp"
            xLabel="Day"
            formatX={(v) => String(v).slice(0, 10)}
            formatY={(v) => formatInt(v)}
            series={c.groups.map((g, i) => ({ key: g, label: group ? g : c.title, color: seriesColor(i) }))}
          />
        ))}
      </div>
      {!group && (
        <fieldset className="attr-picker">
          <legend>Custom attribute columns</legend>
          {schema.data?.attributes.length === 0 && <span className="muted">No custom attributes on these spans.</span>}
          {schema.data?.attributes.map((a) => (
            <label key={`${a.source}:${a.key}`}>
              <input
                type="checkbox"
                checked={columns.some((c) => c.source === a.source && c.key === a.key)}
                onChange={() => toggleAttr(a)}
              />{' '}
              <span className="mono">{a.key}</span> <span className="muted small">({a.value_type})</span>
            </label>
          ))}
        </fieldset>
      )}
      {group ? (
        <GroupTable projectId={projectId} group={group} label={label ?? group} />
      ) : (
        <SpanTable projectId={projectId} entity={entity} project={project} columns={columns} />
      )}
    </main>
  );
}

function SpanTable({
  projectId,
  entity,
  project,
  columns,
}: {
  projectId: string;
  entity: string;
  project: string;
  columns: { source: CustomSource; key: string }[];
}) {
  const spans = useAgentSpans(projectId, columns);
  if (spans.isPending) return <p className="muted">Loading spans…</p>;
  if (spans.isError) return <p role="alert">Could not load spans: {spans.error.message}</p>;
  return (
    <>
      <p className="muted">
        {plural(spans.data.total_count, 'span')}
        {spans.data.total_count > spans.data.spans.length ? `, the newest ${spans.data.spans.length} shown` : ''}
      </p>
      <div className="table-scroll">
        <table className="simple-table spans-table" aria-label="Agent spans">
          <thead>
            <tr>
              <th scope="col">Span</th>
              <th scope="col">Operation</th>
              <th scope="col">Agent</th>
              <th scope="col">Model</th>
              <th scope="col">Tool</th>
              <th scope="col" className="num">
                Tokens in / out
              </th>
              <th scope="col" className="num">
                Duration
              </th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              {columns.map((c) => (
                <th scope="col" key={`${c.source}:${c.key}`} className="mono">
                  {c.key}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {spans.data.spans.map((s) => (
              <tr key={`${s.trace_id}-${s.span_id}`}>
                <th scope="row">
                  <Link
                    to="/$entity/$project/r/call/$callId"
                    params={{ entity, project, callId: s.span_id }}
                    search={{}}
                  >
                    {s.span_name}
                  </Link>
                </th>
                <td>{s.operation_name || '—'}</td>
                <td>{s.agent_name || '—'}</td>
                <td>{s.request_model || '—'}</td>
                <td>{s.tool_name || '—'}</td>
                <td className="num">
                  {formatInt(s.input_tokens)} / {formatInt(s.output_tokens)}
                </td>
                <td className="num">{formatLatency(durationMs(s))}</td>
                <td>
                  <span className={`status ${s.status_code === 'ERROR' ? 'status-error' : 'status-success'}`}>
                    {s.status_code === 'ERROR' ? 'error' : s.ended_at ? 'ok' : 'running'}
                  </span>
                </td>
                <td>{formatTime(s.started_at, false)}</td>
                {columns.map((c) => (
                  <td key={`${c.source}:${c.key}`}>{attrValue(s, c.source, c.key)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function GroupTable({ projectId, group, label }: { projectId: string; group: string; label: string }) {
  const groups = useSpanGroups(projectId, group);
  if (groups.isPending) return <p className="muted">Loading groups…</p>;
  if (groups.isError) return <p role="alert">Could not load groups: {groups.error.message}</p>;
  return (
    <div className="table-scroll">
      <table className="simple-table spans-table" aria-label={`Spans by ${label.toLowerCase()}`}>
        <thead>
          <tr>
            <th scope="col">{label}</th>
            <th scope="col" className="num">
              Spans
            </th>
            <th scope="col" className="num">
              Invocations
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
              Errors
            </th>
            <th scope="col" className="num">
              Avg duration
            </th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {groups.data.groups.map((g) => {
            const v = g.group_keys[group];
            return (
              <tr key={String(v)}>
                <th scope="row">{v === '' || v == null ? '(none)' : String(v)}</th>
                <td className="num">{formatInt(g.span_count)}</td>
                <td className="num">{formatInt(g.invocation_count)}</td>
                <td className="num">{formatInt(g.conversation_count)}</td>
                <td className="num">{formatInt(g.total_input_tokens)}</td>
                <td className="num">{formatInt(g.total_output_tokens)}</td>
                <td className={`num${g.error_count > 0 ? ' error-text' : ''}`}>{formatInt(g.error_count)}</td>
                <td className="num">
                  {formatLatency(g.span_count > 0 ? Math.round(g.total_duration_ms / g.span_count) : null)}
                </td>
                <td>{formatTime(g.last_seen, false)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
