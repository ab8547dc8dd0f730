import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getRouteApi } from '@tanstack/react-router';
import { countText, useCallsCount, useCallsInfinite, TABLE_COLUMNS, type CallsRequest } from '../../api/calls.js';
import { DEFAULT_COLUMNS, fetchedFields, orderedColumns } from '../../lib/columns.js';
import { ColumnChooser } from './column-chooser.js';
import { SavedViews } from './saved-views.js';
import { liveTailUrl, useLiveTail, type LiveState } from '../../api/stream/live-tail.js';
import { mergeLive, patchRows } from '../../lib/live.js';
import { useOpNames } from '../../api/objects.js';
import { PageHeading } from '../../ui/page-heading.js';
import type { Call } from '../../lib/call.js';
import { formatInt, opDisplayName, plural } from '../../lib/format.js';
import { buildCallsQuery, sortOf, type TracesSearch } from '../../lib/query.js';
import { CallsTable } from './calls-table.js';
import { ExportView } from './export-view.js';
import { FilterBar } from './filter-bar.js';
import { CopyLinkButton } from '../../ui/copy-link.js';
import { QueueFromView } from '../queues/queue-from-view.js';
import { SelectionActions } from './selection-actions.js';

const tracesRoute = getRouteApi('/$entity/$project/weave');

const LIVE_LABEL: Record<LiveState, string> = {
  off: 'Off',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  hidden: 'Paused (tab hidden)',
};

export function TracesPage() {
  const { entity, project } = tracesRoute.useParams();
  const search = tracesRoute.useSearch();
  const navigate = tracesRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const sort = sortOf(search);

  const built = useMemo(() => {
    try {
      return { ...buildCallsQuery(projectId, search), error: null };
    } catch (e) {
      return { filter: {}, query: null, error: e instanceof Error ? e.message : String(e) };
    }
  }, [projectId, search]);
  const req: CallsRequest | null = built.error
    ? null
    : { project_id: projectId, filter: built.filter, query: built.query, sort_by: [sort] };

  const cols = search.cols ?? DEFAULT_COLUMNS;
  const pin = useMemo(() => (search.pin ?? []).filter((p) => cols.includes(p)), [search.pin, cols]);
  const shownCols = useMemo(() => orderedColumns(cols, pin), [cols, pin]);
  const fetched = useMemo(() => fetchedFields(TABLE_COLUMNS, cols), [cols]);
  const calls = useCallsInfinite(req, fetched);
  const picked = useMemo(() => new Set(search.picked ?? []), [search.picked]);
  const togglePick = (id: string) => {
    const next = picked.has(id) ? [...picked].filter((p) => p !== id) : [...picked, id].slice(-8);
    void navigate({
      search: (prev: TracesSearch) => ({ ...prev, picked: next.length ? next : undefined }),
      replace: true,
    });
  };
  const clearPicked = () =>
    void navigate({ search: (prev: TracesSearch) => ({ ...prev, picked: undefined }), replace: true });
  const count = useCallsCount(req);
  const loaded = useMemo(() => calls.data?.pages.flat() ?? [], [calls.data]);

  // Live tail: new calls go to the top while the table is at the top and sorted newest first;
  // otherwise they wait as "N new".
  const [live, setLive] = useState<Call[]>([]);
  const [pending, setPending] = useState<Call[]>([]);
  // newer states (ended, renamed) of rows the table already holds: patched in place, never moved
  const [updates, setUpdates] = useState<ReadonlyMap<string, Call>>(new Map());
  const loadedIds = useMemo(() => new Set(loaded.map((c) => c.id)), [loaded]);
  const atTop = useRef(true);
  const newestFirst = sort.field === 'started_at' && sort.direction === 'desc';
  const liveUrl = search.live && req ? liveTailUrl(projectId, built.filter, built.query) : null;
  // Events are handed to React in batches, one per animation frame.
  const batch = useRef<Call[]>([]);
  const frame = useRef(0);
  const onLiveCall = useCallback(
    (c: Call) => {
      batch.current.push(c);
      if (frame.current) return;
      frame.current = requestAnimationFrame(() => {
        frame.current = 0;
        const all = batch.current;
        batch.current = [];
        const known = all.filter((c) => loadedIds.has(c.id));
        if (known.length > 0)
          setUpdates((prev) => {
            const next = new Map(prev);
            for (const c of known) next.set(c.id, c);
            return next;
          });
        const calls = all.filter((c) => !loadedIds.has(c.id));
        if (calls.length === 0) return;
        if (newestFirst && atTop.current) setLive((prev) => mergeLive(prev, calls));
        else setPending((prev) => mergeLive(prev, calls));
      });
    },
    [newestFirst, loadedIds],
  );
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  const liveState = useLiveTail(liveUrl, onLiveCall);
  const paused = search.live && pending.length > 0;

  const rows = useMemo(() => {
    const patched = patchRows(loaded, updates);
    if (live.length === 0) return patched;
    const ids = new Set(live.map((c) => c.id));
    return [...live, ...patched.filter((c) => !ids.has(c.id))];
  }, [live, loaded, updates]);

  const storedOps = useOpNames(projectId);
  const opNames = useMemo(
    () => [...new Set([...(storedOps.data ?? []), ...rows.map((c) => opDisplayName(c.op_name))])].sort().slice(0, 500),
    [rows, storedOps.data],
  );

  const setSearch = (patch: Partial<TracesSearch>) => {
    setLive([]);
    setPending([]);
    setUpdates(new Map());
    void navigate({ search: (prev: TracesSearch) => ({ ...prev, ...patch }), replace: false });
  };
  const loadView = useCallback(
    (next: TracesSearch, replace = false) => {
      setLive([]);
      setPending([]);
      setUpdates(new Map());
      void navigate({ search: next, replace });
    },
    [navigate],
  );
  const onSort = (field: string) =>
    setSearch({
      sort: field === 'started_at' ? undefined : field,
      dir: sort.field === field && sort.direction === 'desc' ? 'asc' : field === 'started_at' ? undefined : 'desc',
    });
  const onOpen = (c: Call) =>
    void navigate({
      to: '/$entity/$project/r/call/$callId',
      params: { entity, project, callId: c.id },
      search: {},
    });
  const onNearEnd = useCallback(() => {
    if (calls.hasNextPage && !calls.isFetchingNextPage) void calls.fetchNextPage();
  }, [calls]);

  const total = count.data
    ? count.data.has_more
      ? plural(countText(count.data), 'call')
      : plural(count.data.count + live.length, 'call')
    : count.isError || built.error
      ? 'Count unavailable'
      : 'Counting…';

  return (
    <main className="page traces-page">
      <div className="page-head">
        <PageHeading>Traces</PageHeading>
        <span className="muted">{total}</span>
        <span className="spacer" />
        <div className="live-box">
          <label>
            <input
              type="checkbox"
              checked={!!search.live}
              onChange={(e) => setSearch({ live: e.target.checked || undefined })}
            />{' '}
            Live tail
          </label>
          {search.live && (
            <span className={`live-state live-${paused ? 'paused' : liveState}`} role="status">
              <span aria-hidden="true">●</span> {paused ? `Paused · ${pending.length} new` : LIVE_LABEL[liveState]}
            </span>
          )}
          {paused && (
            <button
              type="button"
              onClick={() => {
                setLive((prev) => mergeLive(prev, pending));
                setPending([]);
                if (!newestFirst) setSearch({ sort: undefined, dir: undefined });
              }}
            >
              Show {pending.length} new
            </button>
          )}
        </div>
        {picked.size > 0 && (
          <SelectionActions
            entity={entity}
            project={project}
            ids={[...picked]}
            onClear={clearPicked}
            onDeleted={(ids) => {
              setLive((prev) => prev.filter((c) => !ids.includes(c.id)));
              clearPicked();
            }}
          />
        )}
        <SavedViews projectId={projectId} search={search} onLoad={loadView} />
        <ColumnChooser
          req={req}
          cols={shownCols}
          pin={pin}
          onChange={(next) =>
            setSearch({
              cols:
                next.pin.length === 0 && next.cols.join('\n') === DEFAULT_COLUMNS.join('\n') ? undefined : next.cols,
              pin: next.pin.length > 0 ? next.pin : undefined,
            })
          }
        />
        <QueueFromView entity={entity} project={project} req={req} />
        <ExportView req={req} />
        <CopyLinkButton />
      </div>
      <FilterBar search={search} opNames={opNames} onChange={setSearch} />
      {built.error && (
        <p role="alert" className="error-text">
          Field filter: {built.error}
        </p>
      )}
      {calls.isError && (
        <p role="alert" className="error-text">
          Could not load calls: {calls.error.message}
        </p>
      )}
      {calls.isPending && !built.error && <p className="muted">Loading calls…</p>}
      {calls.data && rows.length === 0 && <p>No calls match these filters.</p>}
      {rows.length > 0 && (
        <CallsTable
          entity={entity}
          project={project}
          calls={rows}
          cols={shownCols}
          pin={pin}
          selected={picked}
          onToggle={togglePick}
          sort={sort}
          onSort={onSort}
          onOpen={onOpen}
          onNearEnd={onNearEnd}
          onScrollTop={(top) => (atTop.current = top)}
          totalLabel={`${formatInt(rows.length)} loaded of ${total}`}
          loadingMore={calls.isFetchingNextPage}
          stale={calls.isPlaceholderData}
        />
      )}
    </main>
  );
}
