import { getRouteApi, Link } from '@tanstack/react-router';
import { useThreads, useTurns } from '../../api/threads.js';
import { ChatView } from '../../ui/chat-view.js';
import { PageHeading } from '../../ui/page-heading.js';
import { StatusBadge } from '../../ui/status-badge.js';
import { callStatus, latencyMs } from '../../lib/call.js';
import { chatFromInputs, chatFromOutput } from '../../lib/chat.js';
import { formatLatency, formatTime, opDisplayName, plural, preview } from '../../lib/format.js';

const threadsRoute = getRouteApi('/$entity/$project/weave/threads');

export function ThreadsPage() {
  const { entity, project } = threadsRoute.useParams();
  const { thread } = threadsRoute.useSearch();
  const navigate = threadsRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const threads = useThreads(projectId);
  return (
    <main className="page threads-page">
      <div className="page-head">
        <PageHeading>Threads</PageHeading>
        {threads.data && <span className="muted">{plural(threads.data.length, 'thread')}</span>}
      </div>
      {threads.isPending && <p className="muted">Loading threads…</p>}
      {threads.isError && <p role="alert">Could not load threads: {threads.error.message}</p>}
      {threads.data && threads.data.length === 0 && (
        <p>No threads in this project. Calls with a thread_id and turn calls make one.</p>
      )}
      {threads.data && threads.data.length > 0 && (
        <div className="threads-layout">
          <nav aria-label="Threads" className="thread-list">
            <ul>
              {threads.data.map((t) => (
                <li key={t.thread_id}>
                  <button
                    type="button"
                    className={`thread-item${t.thread_id === thread ? ' selected' : ''}`}
                    aria-current={t.thread_id === thread ? 'true' : undefined}
                    onClick={() => void navigate({ search: { thread: t.thread_id } })}
                  >
                    <span className="mono">{t.thread_id}</span>
                    <span className="muted small">
                      {t.turn_count} turn{t.turn_count === 1 ? '' : 's'} · last {formatTime(t.last_updated)} · p50{' '}
                      {formatLatency(t.p50_turn_duration_ms == null ? null : Math.round(t.p50_turn_duration_ms))}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </nav>
          <section className="turns" aria-label="Turns">
            {thread ? (
              <Turns projectId={projectId} entity={entity} project={project} threadId={thread} />
            ) : (
              <p className="muted">Choose a thread to read its turns.</p>
            )}
          </section>
        </div>
      )}
    </main>
  );
}

function Turns({
  projectId,
  entity,
  project,
  threadId,
}: {
  projectId: string;
  entity: string;
  project: string;
  threadId: string;
}) {
  const turns = useTurns(projectId, threadId);
  if (turns.isPending) return <p className="muted">Loading turns…</p>;
  if (turns.isError) return <p role="alert">Could not load turns: {turns.error.message}</p>;
  return (
    <>
      <h2 className="mono">{threadId}</h2>
      <ol className="turn-list">
        {turns.data.map((c, i) => {
          const inChat = chatFromInputs(c.inputs);
          const outChat = chatFromOutput(c.output);
          return (
            <li key={c.id} className="turn">
              <div className="turn-head">
                <strong>Turn {i + 1}</strong> <StatusBadge status={callStatus(c)} />
                <span className="muted small">
                  {' '}
                  {opDisplayName(c.display_name ?? c.op_name)} · {formatTime(c.started_at)} ·{' '}
                  {formatLatency(latencyMs(c))}
                </span>
                <span className="spacer" />
                <Link to="/$entity/$project/r/call/$callId" params={{ entity, project, callId: c.id }} search={{}}>
                  Open trace
                </Link>
              </div>
              {inChat ? (
                <ChatView messages={inChat.slice(-1)} label={`Turn ${i + 1} input`} />
              ) : (
                <p className="io-preview">
                  <span className="muted">In: </span>
                  {preview(c.inputs, 400)}
                </p>
              )}
              {outChat ? (
                <ChatView messages={outChat} label={`Turn ${i + 1} output`} />
              ) : (
                <p className="io-preview">
                  <span className="muted">Out: </span>
                  {preview(c.output, 400)}
                </p>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
