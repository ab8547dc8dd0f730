import { useEffect, useRef, useState, type FormEvent } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useCall } from '../../api/calls.js';
import { useQueueSpecs } from '../../api/annotations.js';
import { useSession } from '../../api/auth.js';
import { useFeedback } from '../../api/feedback.js';
import { useJudge, useQueue, useQueueItems, type ItemState, type Judgement, type QueueItem } from '../../api/queues.js';
import { ChatView } from '../../ui/chat-view.js';
import { JsonTree } from '../../ui/json-tree.js';
import { PageHeading } from '../../ui/page-heading.js';
import { callRef } from '../../lib/call.js';
import { chatFromInputs, chatFromOutput } from '../../lib/chat.js';
import { opDisplayName } from '../../lib/format.js';
import { isTyping } from '../../lib/shortcuts.js';
import { fieldText } from '../../lib/annotations.js';
import { AnnotationForm } from './annotation-form.js';

const reviewRoute = getRouteApi('/$entity/$project/weave/queues/$queueId');

const STATE_LABEL: Record<ItemState, string> = {
  unstarted: 'Not reviewed',
  in_progress: 'In progress',
  completed: 'Reviewed',
  skipped: 'Skipped',
};
const done = (i: QueueItem) => i.annotation_state === 'completed' || i.annotation_state === 'skipped';

/**
 * A reviewer steps through a queue's calls with the keyboard: j/→ next, k/← previous, u 👍, d 👎,
 * n a note, s skip. Each judgement lands as feedback on the call and records the item's progress,
 * then the next item opens. The item shown is in the URL (`?i=`).
 */
export function ReviewPage() {
  const { entity, project, queueId } = reviewRoute.useParams();
  const search = reviewRoute.useSearch();
  const navigate = reviewRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const queue = useQueue(projectId, queueId);
  const items = useQueueItems(projectId, queueId);
  const judge = useJudge(projectId, queueId);
  const list = items.data ?? [];
  const firstOpen = Math.max(
    0,
    list.findIndex((i) => !done(i)),
  );
  const index = Math.min(search.i ?? firstOpen, Math.max(0, list.length - 1));
  const item = list[index];
  const reviewed = list.filter(done).length;
  const specs = useQueueSpecs(projectId, queue.data?.scorer_refs ?? []);
  const userId = useSession().data?.user.id ?? null;
  const itemFeedback = useFeedback(projectId, callRef(projectId, item?.call_id ?? ''));
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const [note, setNote] = useState('');

  const go = (i: number) => {
    if (i < 0 || i >= list.length) return;
    setNote('');
    void navigate({ search: { i }, replace: true });
  };
  const act = (judgement: Judgement) => {
    if (!item || judge.isPending) return;
    judge.mutate({ item, judgement }, { onSuccess: () => (index + 1 < list.length ? go(index + 1) : setNote('')) });
  };
  const actRef = useRef({ act, go, index });
  actRef.current = { act, go, index };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      const { act, go, index } = actRef.current;
      const keyMap: Record<string, () => void> = {
        j: () => go(index + 1),
        ArrowRight: () => go(index + 1),
        k: () => go(index - 1),
        ArrowLeft: () => go(index - 1),
        u: () => act({ kind: 'thumb', emoji: '👍' }),
        d: () => act({ kind: 'thumb', emoji: '👎' }),
        s: () => act({ kind: 'skip' }),
        n: () => noteRef.current?.focus(),
      };
      const fn = keyMap[e.key];
      if (fn) {
        e.preventDefault();
        fn();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const submitNote = (e?: FormEvent) => {
    e?.preventDefault();
    const text = note.trim();
    if (!text) return;
    act({ kind: 'note', note: text });
    noteRef.current?.blur();
  };

  return (
    <main className="page review-page">
      <div className="page-head">
        <Link to="/$entity/$project/weave/queues" params={{ entity, project }} className="back-link">
          ← Queues
        </Link>
        <PageHeading>Review: {queue.data?.name ?? '…'}</PageHeading>
        <span className="spacer" />
        {list.length > 0 && (
          <span className="progress">
            <progress value={reviewed} max={list.length} aria-label="Queue progress" />
            <span className="small" role="status">
              {reviewed} of {list.length} reviewed
            </span>
          </span>
        )}
      </div>
      {items.isPending && <p className="muted">Loading items…</p>}
      {items.isError && <p role="alert">Could not load the queue: {items.error.message}</p>}
      {items.data && list.length === 0 && <p>This queue is empty.</p>}
      {item && (
        <>
          <div className="review-bar" role="toolbar" aria-label="Review">
            <button type="button" onClick={() => go(index - 1)} disabled={index === 0} aria-keyshortcuts="k ArrowLeft">
              ← Previous <kbd>k</kbd>
            </button>
            <span className="small">
              Item {index + 1} of {list.length} · <strong>{STATE_LABEL[item.annotation_state]}</strong>
            </span>
            <button
              type="button"
              onClick={() => go(index + 1)}
              disabled={index + 1 >= list.length}
              aria-keyshortcuts="j ArrowRight"
            >
              Next <kbd>j</kbd> →
            </button>
            <span className="spacer" />
            <button
              type="button"
              onClick={() => act({ kind: 'thumb', emoji: '👍' })}
              disabled={judge.isPending}
              aria-keyshortcuts="u"
            >
              👍 Good <kbd>u</kbd>
            </button>
            <button
              type="button"
              onClick={() => act({ kind: 'thumb', emoji: '👎' })}
              disabled={judge.isPending}
              aria-keyshortcuts="d"
            >
              👎 Bad <kbd>d</kbd>
            </button>
            <button
              type="button"
              onClick={() => act({ kind: 'skip' })}
              disabled={judge.isPending}
              aria-keyshortcuts="s"
            >
              Skip <kbd>s</kbd>
            </button>
          </div>
          <form className="note-form review-note" onSubmit={submitNote}>
            <label htmlFor="review-note">
              Note <kbd>n</kbd> (Enter saves)
            </label>
            <textarea
              id="review-note"
              ref={noteRef}
              value={note}
              rows={2}
              maxLength={1024}
              aria-keyshortcuts="n"
              onChange={(e) => setNote(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault();
                  submitNote();
                } else if (e.key === 'Escape') noteRef.current?.blur();
              }}
            />
            <button type="submit" disabled={judge.isPending || !note.trim()}>
              Save note
            </button>
          </form>
          {(specs.data?.length ?? 0) > 0 && itemFeedback.data && (
            <AnnotationForm
              key={item.id}
              projectId={projectId}
              queueId={queueId}
              item={item}
              specs={specs.data!}
              feedback={itemFeedback.data}
              userId={userId}
              onSaved={() => (index + 1 < list.length ? go(index + 1) : undefined)}
            />
          )}
          {judge.isError && (
            <p role="alert" className="error-text">
              Not saved: {judge.error.message}
            </p>
          )}
          <ReviewItem projectId={projectId} entity={entity} project={project} item={item} />
        </>
      )}
    </main>
  );
}

function ReviewItem({
  projectId,
  entity,
  project,
  item,
}: {
  projectId: string;
  entity: string;
  project: string;
  item: QueueItem;
}) {
  const call = useCall(projectId, item.call_id);
  const feedback = useFeedback(projectId, callRef(projectId, item.call_id));
  const c = call.data;
  const inChat = c ? chatFromInputs(c.inputs) : null;
  const outChat = c ? chatFromOutput(c.output) : null;
  return (
    <article className="review-item" aria-label="Call under review">
      <h2>
        <span className="mono">{opDisplayName(item.call_op_name)}</span>{' '}
        <Link
          to="/$entity/$project/r/call/$callId"
          params={{ entity, project, callId: item.call_id }}
          search={{}}
          className="small"
        >
          Open trace
        </Link>
      </h2>
      {call.isPending && <p className="muted">Loading the call…</p>}
      {call.isError && <p role="alert">Could not load the call: {call.error.message}</p>}
      {c?.exception && <pre className="exception">{c.exception}</pre>}
      {c && (
        <div className="review-io">
          <section aria-label="Inputs">
            <h3>Inputs</h3>
            {inChat ? (
              <ChatView messages={inChat} label="Inputs as a conversation" />
            ) : (
              <JsonTree value={c.inputs} projectId={projectId} openDepth={2} label="Inputs" />
            )}
          </section>
          <section aria-label="Output">
            <h3>Output</h3>
            {outChat ? (
              <ChatView messages={outChat} label="Output as a conversation" />
            ) : (
              <JsonTree value={c.output} projectId={projectId} openDepth={2} label="Output" />
            )}
          </section>
        </div>
      )}
      <section aria-label="Feedback on this call">
        <h3>Feedback</h3>
        {feedback.data && feedback.data.length === 0 && <p className="muted">None yet.</p>}
        <ul className="feedback-list" aria-label="Feedback">
          {(feedback.data ?? []).map((f) => (
            <li key={f.id}>
              {f.feedback_type === 'wandb.reaction.1'
                ? String(f.payload.emoji ?? '')
                : f.feedback_type === 'wandb.note.1'
                  ? String(f.payload.note ?? '')
                  : f.feedback_type.startsWith('wandb.annotation.')
                    ? `${f.feedback_type.slice('wandb.annotation.'.length)}: ${fieldText(f.payload.value)}`
                    : f.feedback_type}
            </li>
          ))}
        </ul>
      </section>
    </article>
  );
}
