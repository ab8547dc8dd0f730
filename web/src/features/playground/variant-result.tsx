import { Link } from '@tanstack/react-router';
import type { StreamedAnswer } from '../../lib/playground.js';

/** A variant's run: idle, waiting, streaming (the answer so far), done, or failed before an answer. */
export type RunState =
  | { kind: 'idle' }
  | { kind: 'running'; partial?: StreamedAnswer }
  | { kind: 'done'; answer: StreamedAnswer }
  | { kind: 'failed'; message: string };

/** A variant's last run: the answer (or the provider's error), its tokens and the recorded call. */
export function VariantResult({
  n,
  state,
  entity,
  project,
}: {
  n: number;
  state: RunState;
  entity: string;
  project: string;
}) {
  if (state.kind === 'idle') return null;
  if (state.kind === 'running' && !state.partial?.text)
    return (
      <p role="status" className="muted">
        Running variant {n}…
      </p>
    );
  if (state.kind === 'failed')
    return (
      <p role="alert" className="error-text">
        Variant {n} could not run: {state.message}
      </p>
    );
  const outcome = state.kind === 'done' ? state.answer : state.partial!;
  const callId = outcome.callId;
  const streaming = state.kind === 'running';
  return (
    <section className="variant-result" aria-label={`Answer of variant ${n}`}>
      {outcome.error !== null ? (
        <p role="alert" className="error-text">
          {outcome.error}
        </p>
      ) : (
        <pre className="variant-answer" aria-busy={streaming}>
          {outcome.text ?? '(no text in the answer)'}
        </pre>
      )}
      <p className="muted small">
        {outcome.promptTokens !== null && `${outcome.promptTokens} prompt tokens · `}
        {outcome.completionTokens !== null && `${outcome.completionTokens} completion tokens · `}
        {streaming ? (
          <span role="status">Streaming…</span>
        ) : callId ? (
          <Link to="/$entity/$project/r/call/$callId" params={{ entity, project, callId }}>
            Recorded call
          </Link>
        ) : (
          'not recorded'
        )}
      </p>
    </section>
  );
}
