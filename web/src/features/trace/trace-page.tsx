import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useCall, useTraceCalls } from '../../api/calls.js';
import { PageHeading } from '../../components/page-heading.js';
import { CopyLinkButton } from '../../components/copy-link.js';
import { opDisplayName, plural } from '../../lib/format.js';
import { ancestors, indexTrace } from '../../lib/tree.js';
import { callRoute } from '../../router.js';
import { CallTree } from './call-tree.js';
import { CallDetail } from './call-detail.js';

export default function TracePage() {
  const { entity, project, callId } = callRoute.useParams();
  const { sel } = callRoute.useSearch();
  const navigate = useNavigate({ from: callRoute.fullPath });
  const projectId = `${entity}/${project}`;
  const selected = sel ?? callId;

  const anchor = useCall(projectId, callId);
  const traceId = anchor.data?.trace_id ?? null;
  const traceCalls = useTraceCalls(projectId, traceId);
  const index = useMemo(() => (traceCalls.data ? indexTrace(traceCalls.data) : null), [traceCalls.data]);
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());

  // Keep the selected call visible: open its ancestors.
  useEffect(() => {
    if (!index) return;
    const up = ancestors(index, selected);
    if (up.some((id) => collapsed.has(id))) {
      setCollapsed((prev) => {
        const next = new Set(prev);
        for (const id of up) next.delete(id);
        return next;
      });
    }
  }, [index, selected, collapsed]);

  const select = (id: string) => void navigate({ search: id === callId ? {} : { sel: id }, replace: true });
  const root = index && index.roots.length > 0 ? index.byId.get(index.roots[0]) : null;

  return (
    <main className="page trace-page">
      <div className="page-head">
        <Link to="/$entity/$project/weave" params={{ entity, project }} search={{}} className="back-link">
          ← Traces
        </Link>
        <PageHeading>Trace {root ? opDisplayName(root.display_name ?? root.op_name) : ''}</PageHeading>
        {traceCalls.data && <span className="muted">{plural(traceCalls.data.length, 'call')}</span>}
        <span className="spacer" />
        <CopyLinkButton />
      </div>
      {anchor.isPending && <p className="muted">Loading call…</p>}
      {anchor.isError && <p role="alert">Could not load the call: {anchor.error.message}</p>}
      {anchor.data === null && (
        <p role="alert">
          No call with id {callId} in {projectId}.
        </p>
      )}
      {traceCalls.isError && <p role="alert">Could not load the trace: {traceCalls.error.message}</p>}
      {index && (
        <div className="trace-layout">
          <CallTree
            index={index}
            collapsed={collapsed}
            onToggle={(id) =>
              setCollapsed((prev) => {
                const next = new Set(prev);
                if (next.has(id)) next.delete(id);
                else next.add(id);
                return next;
              })
            }
            selected={selected}
            onSelect={select}
          />
          <CallDetail projectId={projectId} callId={selected} entity={entity} project={project} />
        </div>
      )}
    </main>
  );
}
