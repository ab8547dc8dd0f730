import { useState, type FormEvent } from 'react';
import { useCreateFeedback, useFeedback } from '../../api/feedback.js';
import { callRef } from '../../lib/call.js';
import { formatTime, preview } from '../../lib/format.js';

const EMOJIS = ['👍', '👎', '🎉', '❤️', '🤔', '🚀'];

export function FeedbackPanel({ projectId, callId }: { projectId: string; callId: string }) {
  const ref = callRef(projectId, callId);
  const list = useFeedback(projectId, ref);
  const create = useCreateFeedback(projectId, ref);
  const [note, setNote] = useState('');
  const addNote = (e: FormEvent) => {
    e.preventDefault();
    const text = note.trim();
    if (!text) return;
    create.mutate({ feedback_type: 'wandb.note.1', payload: { note: text } }, { onSuccess: () => setNote('') });
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
            disabled={create.isPending}
            onClick={() => create.mutate({ feedback_type: 'wandb.reaction.1', payload: { emoji: e } })}
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
                {f.creator ? `${f.creator} · ` : ''}
                {formatTime(f.created_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
