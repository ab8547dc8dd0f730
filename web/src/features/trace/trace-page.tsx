import { useEffect, useMemo, useState } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useCall, useTraceCalls } from '../../api/calls.js';
import { PageHeading } from '../../ui/page-heading.js';
import { CopyLinkButton } from '../../ui/copy-link.js';
import { opDisplayName, plural } from '../../lib/format.js';
import { ancestors, indexTrace, initiallyCollapsed } from '../../lib/tree.js';
import { CallTree } from './call-tree.js';
import { CallDetail, type CallTab } from './call-detail.js';

const callRoute = getRouteApi('/$entity/$project/r/call/$callId');

export default function TracePage() {
  const { entity, project, callId } = callRoute.useParams();
  const { sel, tab } = callRoute.useSearch();
  const navigate = callRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const selected = sel ?? callId;

  const anchor = useCall(projectId, callId);
  const traceId = anchor.data?.trace_id ?? null;
  const traceCalls = useTraceCalls(projectId, traceId);
  const index = useMemo(() => (traceCalls.data ? indexTrace(traceCalls.data) : null), [traceCalls.data]);
  // What the user opened and closed in this trace; until then a big trace's default (lib/tree.ts).
  const [toggled, setToggled] = useState<{ traceId: string | null; collapsed: Set<string> } | null>(null);
  const collapsed = useMemo(
    () =>
      toggled && toggled.traceId === traceId
        ? toggled.collapsed
        : index
          ? initiallyCollapsed(index)
          : new Set<string>(),
    [toggled, traceId, index],
  );
  const setCollapsed = (next: (prev: Set<string>) => Set<string>) =>
    setToggled({ traceId, collapsed: next(collapsed) });

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

  const select = (id: string) =>
    void navigate({ search: { ...(id === callId ? {} : { sel: id }), ...(tab ? { tab } : {}) }, replace: true });
  const onTab = (next: CallTab) =>
    void navigate({ search: { ...(sel ? { sel } : {}), ...(next === 'call' ? {} : { tab: next }) }, replace: true });
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
          <CallDetail
            projectId={projectId}
            callId={selected}
            entity={entity}
            project={project}
            tab={tab ?? 'call'}
            onTab={onTab}
          />
        </div>
      )}
    </main>
  );
}
