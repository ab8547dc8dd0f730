import { useMemo, type ReactNode } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useCallsByIds } from '../../api/calls.js';
import { CopyLinkButton } from '../../ui/copy-link.js';
import { PageHeading } from '../../ui/page-heading.js';
import { StatusBadge } from '../../ui/status-badge.js';
import { callStatus, latencyMs, tokenUsage, totalCost, type Call } from '../../lib/call.js';
import { cellText } from '../../lib/columns.js';
import { compareValues, MAX_COMPARE_PATHS, parseCompareIds, type CompareRow } from '../../lib/compare-calls.js';
import { diffLines } from '../../lib/diff.js';
import { CompareTraces } from './compare-traces.js';
import { formatCost, formatInt, formatLatency, formatTime, opDisplayName } from '../../lib/format.js';

const compareRoute = getRouteApi('/$entity/$project/r/compare');

/** The summary as compared: without the feedback list the server adds (not part of the call). */
function summaryOf(c: Call): unknown {
  const s = (c.summary ?? {}) as Record<string, unknown>;
  const weave = { ...((s.weave as Record<string, unknown> | undefined) ?? {}) };
  delete weave.feedback;
  return { ...s, weave };
}

const PARTS: { title: string; of: (c: Call) => unknown }[] = [
  { title: 'Inputs', of: (c) => c.inputs },
  { title: 'Output', of: (c) => c.output },
  { title: 'Summary', of: summaryOf },
  { title: 'Attributes', of: (c) => c.attributes },
];

/**
 * Two or more calls side by side (from a selection on the traces page): their facts, then inputs,
 * output, summary and attributes path by path, each value that differs from the baseline call marked,
 * and a line diff of changed texts. Calls, baseline and "show unchanged" live in the URL.
 */
export default function CompareCallsPage() {
  const { entity, project } = compareRoute.useParams();
  const search = compareRoute.useSearch();
  const navigate = compareRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const ids = useMemo(() => parseCompareIds(search.ids), [search.ids]);
  const q = useCallsByIds(projectId, ids);
  const calls = useMemo(() => q.data ?? [], [q.data]);
  const base = Math.min(search.base ?? 0, Math.max(0, calls.length - 1));
  const setSearch = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => ({ ...s, ...patch }), replace: true });
  const label = (c: Call) => c.display_name ?? opDisplayName(c.op_name);

  return (
    <main className="page compare-calls-page">
      <div className="page-head">
        <Link to="/$entity/$project/weave" params={{ entity, project }} search={{}} className="back-link">
          ← Traces
        </Link>
        <PageHeading>Compare {calls.length || ids.length} calls</PageHeading>
        <span className="spacer" />
        <label>
          <input
            type="checkbox"
            checked={!!search.all}
            onChange={(e) => setSearch({ all: e.target.checked || undefined })}
          />{' '}
          Show unchanged paths
        </label>
        <CopyLinkButton />
      </div>
      {ids.length < 2 && <p role="alert">Choose two or more calls on the traces page to compare them.</p>}
      {q.isPending && ids.length > 0 && <p className="muted">Loading calls…</p>}
      {q.isError && <p role="alert">Could not load the calls: {q.error.message}</p>}
      {q.data && calls.length < ids.length && (
        <p role="alert">
          {ids.length - calls.length} of the chosen calls no longer exist in {projectId}.
        </p>
      )}
      {calls.length > 0 && (
        <>
          <Facts
            calls={calls}
            base={base}
            entity={entity}
            project={project}
            onBase={(i) => setSearch({ base: i || undefined })}
            label={label}
          />
          <CompareTraces projectId={projectId} calls={calls} base={base} labels={calls.map(label)} />
          {PARTS.map((p) => (
            <Part
              key={p.title}
              title={p.title}
              calls={calls}
              labels={calls.map(label)}
              rows={compareValues(calls.map(p.of), base)}
              base={base}
              all={!!search.all}
            />
          ))}
        </>
      )}
    </main>
  );
}

function Facts({
  calls,
  base,
  entity,
  project,
  onBase,
  label,
}: {
  calls: Call[];
  base: number;
  entity: string;
  project: string;
  onBase: (i: number) => void;
  label: (c: Call) => string;
}) {
  const facts: [string, (c: Call) => ReactNode][] = [
    ['Op', (c) => <span className="mono small">{opDisplayName(c.op_name)}</span>],
    ['Status', (c) => <StatusBadge status={callStatus(c)} />],
    ['Started', (c) => formatTime(c.started_at)],
    ['Latency', (c) => formatLatency(latencyMs(c))],
    ['Tokens', (c) => (tokenUsage(c) ? formatInt(tokenUsage(c)!.total) : '—')],
    ['Cost', (c) => formatCost(totalCost(c))],
  ];
  return (
    <section aria-labelledby="compare-facts">
      <h2 id="compare-facts">Calls</h2>
      <div className="table-scroll">
        <table className="simple-table compare-table" aria-label="Calls compared">
          <thead>
            <tr>
              <th scope="col">Call</th>
              {calls.map((c, i) => (
                <th scope="col" key={c.id}>
                  <Link to="/$entity/$project/r/call/$callId" params={{ entity, project, callId: c.id }} search={{}}>
                    {label(c)}
                  </Link>{' '}
                  {i === base ? (
                    <span className="badge">Baseline</span>
                  ) : (
                    <button
                      type="button"
                      className="small"
                      onClick={() => onBase(i)}
                      aria-label={`Make baseline: ${label(c)}`}
                    >
                      Make baseline
                    </button>
                  )}
                  <div className="mono small muted">{c.id}</div>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {facts.map(([name, cell]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                {calls.map((c) => (
                  <td key={c.id}>{cell(c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Part({
  title,
  calls,
  labels,
  rows,
  base,
  all,
}: {
  title: string;
  calls: Call[];
  labels: string[];
  rows: CompareRow[];
  base: number;
  all: boolean;
}) {
  const differing = rows.filter((r) => r.anyDiff).length;
  const shown = (all ? rows : rows.filter((r) => r.anyDiff)).slice(0, MAX_COMPARE_PATHS);
  const id = `compare-${title.toLowerCase()}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>
        {title}{' '}
        <span className="muted small">
          {differing === 0 ? 'all the same' : `${differing} of ${rows.length} paths differ`}
        </span>
      </h2>
      {shown.length > 0 && (
        <div className="table-scroll">
          <table className="simple-table compare-table" aria-label={`${title} compared`}>
            <thead>
              <tr>
                <th scope="col">Path</th>
                {calls.map((c, i) => (
                  <th scope="col" key={c.id}>
                    {labels[i]}
                    {i === base ? ' (baseline)' : ''}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr key={r.path}>
                  <th scope="row" className="mono small">
                    {r.path}
                  </th>
                  {r.values.map((v, i) => (
                    <td key={calls[i]!.id} className={r.differs[i] ? 'cell-diff' : undefined}>
                      <span className="compare-value">{v === undefined ? '(absent)' : cellText(v, 2000)}</span>
                      {r.differs[i] && <span className="sr-only"> (differs from the baseline)</span>}
                      {r.differs[i] && typeof v === 'string' && typeof r.values[base] === 'string' && (
                        <TextDiff left={r.values[base] as string} right={v} />
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(all ? rows.length : differing) > MAX_COMPARE_PATHS && (
        <p className="muted small">The first {MAX_COMPARE_PATHS} paths are shown.</p>
      )}
    </section>
  );
}

function TextDiff({ left, right }: { left: string; right: string }) {
  if (!left.includes('\n') && !right.includes('\n') && left.length + right.length < 160) return null;
  return (
    <details>
      <summary>Line diff</summary>
      <div className="row-detail">
        {diffLines(left, right).map((l, i) => (
          <div key={i} className={`diff-line diff-line-${l.kind}`}>
            {l.kind === 'added' ? '+ ' : l.kind === 'removed' ? '- ' : '  '}
            {l.text}
          </div>
        ))}
      </div>
    </details>
  );
}
