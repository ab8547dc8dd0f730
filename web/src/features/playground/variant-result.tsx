import { Link } from '@tanstack/react-router';
import { completionOutcome } from '../../lib/playground.js';
import type { CompletionRes } from '../../api/completions.js';

export type RunState =
  { kind: 'idle' } | { kind: 'running' } | { kind: 'done'; res: CompletionRes } | { kind: 'failed'; message: string };

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
  if (state.kind === 'running')
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
  const outcome = completionOutcome(state.res.response);
  const callId = state.res.weave_call_id;
  return (
    <section className="variant-result" aria-label={`Answer of variant ${n}`}>
      {outcome.error !== null ? (
        <p role="alert" className="error-text">
          {outcome.error}
        </p>
      ) : (
        <pre className="variant-answer">{outcome.text ?? '(no text in the answer)'}</pre>
      )}
      <p className="muted small">
        {outcome.promptTokens !== null && `${outcome.promptTokens} prompt tokens · `}
        {outcome.completionTokens !== null && `${outcome.completionTokens} completion tokens · `}
        {callId ? (
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
