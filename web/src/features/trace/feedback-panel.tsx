import { useState, type FormEvent } from 'react';
import { useSession } from '../../api/auth.js';
import { useCreateFeedback, useFeedback, useRemoveFeedback } from '../../api/feedback.js';
import type { Feedback } from '../../lib/call.js';
import { callRef } from '../../lib/call.js';
import { formatTime, preview } from '../../lib/format.js';

const EMOJIS = ['👍', '👎', '🎉', '❤️', '🤔', '🚀'];

export function FeedbackPanel({ projectId, callId }: { projectId: string; callId: string }) {
  const ref = callRef(projectId, callId);
  const list = useFeedback(projectId, ref);
  const create = useCreateFeedback(projectId, ref);
  const remove = useRemoveFeedback(projectId, ref);
  const session = useSession();
  const me = session.data?.user ?? null;
  const mine = (f: Feedback) => me !== null && f.wb_user_id === me.id;
  const author = (f: Feedback) => f.creator ?? (mine(f) ? me!.username : 'another user');
  // a reaction is a toggle, as in Weave: a second click takes the user's own reaction back
  const myReaction = (emoji: string) =>
    list.data?.find((f) => f.feedback_type === 'wandb.reaction.1' && f.payload.emoji === emoji && mine(f));
  const busy = create.isPending || remove.isPending || list.isPending;
  const react = (emoji: string) => {
    const given = myReaction(emoji);
    if (given) remove.mutate(given.id);
    else create.mutate({ feedback_type: 'wandb.reaction.1', payload: { emoji }, creator: me?.username ?? null });
  };
  const [note, setNote] = useState('');
  const addNote = (e: FormEvent) => {
    e.preventDefault();
    const text = note.trim();
    if (!text) return;
    create.mutate(
      { feedback_type: 'wandb.note.1', payload: { note: text }, creator: me?.username ?? null },
      { onSuccess: () => setNote('') },
    );
  };
  return (
    <section aria-labelledby="feedback-title">
      <h3 id="feedback-title">Feedback</h3>
      <div className="reactions" role="group" aria-label="Add a reaction">
        {EMOJIS.map((e) => (
          <button
            key={e}
            type="button"
            aria-label={`React with ${e}`}
            aria-pressed={myReaction(e) !== undefined}
            disabled={busy}
            onClick={() => react(e)}
          >
            {e}
          </button>
        ))}
      </div>
      <form onSubmit={addNote} className="note-form">
        <label htmlFor={`note-${callId}`}>Note</label>
        <textarea
          id={`note-${callId}`}
          value={note}
          maxLength={1024}
          rows={2}
          onChange={(e) => setNote(e.target.value)}
        />
        <button type="submit" disabled={create.isPending || !note.trim()}>
          Add note
        </button>
      </form>
      {create.isError && (
        <p role="alert" className="error-text">
          Could not save feedback: {create.error.message}
        </p>
      )}
      {remove.isError && (
        <p role="alert" className="error-text">
          Could not remove feedback: {remove.error.message}
        </p>
      )}
      {list.isError && <p role="alert">Could not load feedback: {list.error.message}</p>}
      {list.data && list.data.length === 0 && <p className="muted">No feedback yet.</p>}
      {list.data && list.data.length > 0 && (
        <ul className="feedback-list">
          {list.data.map((f) => (
            <li key={f.id}>
              <span className="feedback-main">
                {f.feedback_type === 'wandb.reaction.1'
                  ? String(f.payload.emoji ?? '')
                  : f.feedback_type === 'wandb.note.1'
                    ? String(f.payload.note ?? '')
                    : `${f.feedback_type}: ${preview(f.payload)}`}
              </span>
              <span className="muted small">
                {' '}
                {author(f)} · {formatTime(f.created_at)}
              </span>
              {mine(f) && (
                <button
                  type="button"
                  className="link-button"
                  disabled={remove.isPending}
                  aria-label={`Remove ${f.feedback_type === 'wandb.reaction.1' ? `reaction ${String(f.payload.emoji ?? '')}` : 'feedback'} added ${formatTime(f.created_at)}`}
                  onClick={() => remove.mutate(f.id)}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
